import { emptyPagesPdf, encryptedPdf } from '../fixtures/pdf-writer.ts';
import { logErrors } from './app-steps.ts';
import { expect, test } from './app-test.ts';

// What the page does with a PDF that cannot simply be read: one that needs a password asks for
// it where it was attached; a long one shows its progress and can be cancelled while it is read; one
// past the page limit is refused at once, naming the count and the limit. The PDFs are written for the
// test (test/fixtures/pdf-writer.ts) and read by the app's own reader, pdf.js in its own Web Worker.

const pdf = (name: string, bytes: Uint8Array) => ({
  name,
  mimeType: 'application/pdf',
  buffer: Buffer.from(bytes),
});

test('a PDF with a password asks for it on the page: a wrong one is said, the right one attaches it', async ({
  page,
}) => {
  logErrors(page);
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer
    .getByTestId('attach-input')
    .setInputFiles([pdf('payslip.pdf', encryptedPdf('s3cret', ['Net pay: 1234']))]);
  const prompt = composer.getByTestId('pdf-password');
  await expect(prompt).toContainText('"payslip.pdf" is protected by a password');
  await expect(composer.getByTestId('attachment-chip')).toHaveCount(0);

  const field = prompt.getByLabel('Password for payslip.pdf');
  await field.fill('guess');
  await field.press('Enter'); // unlocks; it does not ask the question
  await expect(prompt.getByTestId('pdf-password-message')).toHaveText(
    'The password for "payslip.pdf" is not right.',
  );
  await expect(field).toHaveValue('');
  await expect(composer.getByTestId('attachment-chip')).toHaveCount(0);

  await field.fill('s3cret');
  await prompt.getByRole('button', { name: 'Unlock' }).click();
  await expect(prompt).toHaveCount(0);
  const chip = composer.getByTestId('attachment-chip');
  await expect(chip).toHaveCount(1);
  await expect(chip).toContainText('payslip.pdf');
  await expect(chip).toContainText('1 page');
  await expect(composer.getByTestId('attach-errors')).toHaveCount(0);

  // Remove drops a locked PDF without its password.
  await composer.getByTestId('attach-input').setInputFiles([pdf('other.pdf', encryptedPdf('x'))]);
  await expect(prompt).toContainText('"other.pdf" is protected by a password');
  await prompt.getByRole('button', { name: 'Remove other.pdf' }).click();
  await expect(prompt).toHaveCount(0);
  await expect(chip).toHaveCount(1);
});

test('a long PDF shows page n of N while it is read and can be cancelled; one past the page limit is refused at once', async ({
  page,
}) => {
  test.setTimeout(240_000);
  logErrors(page);
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  const input = composer.getByTestId('attach-input');
  const errors = composer.getByTestId('attach-errors');

  // One page past the limit: refused, naming the count and the limit. That no page is read first is
  // test/unit/shared/pdf-text.test.ts's (no progress at all); 50,000 pages here only cost pdf.js seconds of
  // parsing 100,000 objects under load to show the same message.
  await input.setInputFiles([pdf('huge.pdf', emptyPagesPdf(2_001))]);
  await expect(errors).toContainText('"huge.pdf" has 2,001 pages: Baton reads at most 2,000 pages of a PDF.');
  await expect(composer.getByTestId('attachment-chip')).toHaveCount(0);

  // 2,000 pages take seconds: the page says how far it is, and Cancel stops it; the next file is read.
  await input.setInputFiles([
    pdf('long.pdf', emptyPagesPdf(2_000)),
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Read after the PDF.') },
  ]);
  const progress = composer.getByTestId('attach-progress');
  await expect(progress).toContainText(/Reading long\.pdf: page \d+ of 2000/);
  await progress.getByRole('button', { name: 'Cancel reading long.pdf' }).click();
  await expect(errors).toHaveText('Reading "long.pdf" was cancelled.');
  await expect(progress).toHaveCount(0);
  const chips = composer.getByTestId('attachment-chip');
  await expect(chips).toHaveCount(1);
  await expect(chips).toContainText('notes.txt');
});
