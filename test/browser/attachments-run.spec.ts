import { readFile } from 'node:fs/promises';
import { textPdf } from '../fixtures/pdf-writer.ts';
import { writePng } from '../fixtures/png-writer.ts';
import { IMAGE_MODELS } from '../provider/server.ts';
import { editPlan, importRunFile, loadTinyConductor, logErrors, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { seedApp } from './seed-app.ts';

// Attachments through the whole app: a PDF with a text layer, a CSV and an image attached on Ask, planned
// with Plan only (the review says which step gets which file, and the user sets it), run against the
// test provider (the `images` model reports what images it got, `echo` repeats the text it was sent),
// kept by History, exported with the files and imported back.

const servers = useServers({
  cors: 'strict',
  models: [...IMAGE_MODELS, { id: 'echo', behaviour: { kind: 'echo' } }],
});

const CSV_MARK = 'QUOKKA-4471';
const PDF_MARK = 'Clause 7 renews the lease';

async function addWorker(page: Page, model: string, label: string, vision: boolean): Promise<void> {
  const form = page.getByTestId('add-worker');
  await form.getByLabel('Provider').selectOption('custom');
  await form.getByLabel('Base URL').fill(servers.provider.baseURL);
  await form.getByLabel('Model').fill(model);
  await form.getByLabel('Label').fill(label);
  await form.getByLabel(/Strengths/).fill(`answers like ${model}`);
  if (vision) await form.getByTestId('worker-vision').check();
  await form.getByTestId('add-worker-submit').click();
  await expect(page.getByTestId('pool-table')).toContainText(label);
}

function chatBodies(): { model: string; body: string }[] {
  return servers.provider.requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
    .map((r) => ({ model: (r.body as { model: string }).model, body: JSON.stringify(r.body) }));
}

test('files attached on Ask go only to the steps that name them, and History, export and import keep them', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  await seedApp(page, { plan: { maxDepth: 0, maxSteps: 2 } });
  await loadTinyConductor(page, servers.models.url);
  // Through the form: the only browser test of its "takes images" tick.
  await page.goto('/#/settings');
  await addWorker(page, 'images', 'Looker', true); // w1
  await addWorker(page, 'echo', 'Reader', false); // w2
  await expect(page.getByTestId('pool-table')).toContainText('takes images');

  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await expect(composer.getByTestId('attach-button')).toBeVisible();
  await expect(composer).toContainText('Up to 10 files');
  await composer.getByTestId('attach-input').setInputFiles([
    { name: 'lease.pdf', mimeType: 'application/pdf', buffer: Buffer.from(textPdf([[PDF_MARK]])) },
    { name: 'rent.csv', mimeType: 'text/csv', buffer: Buffer.from(`month,amount\n${CSV_MARK},900\n`) },
    { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from(writePng(40, 30)) },
  ]);
  const chips = composer.getByTestId('attachment-chip');
  await expect(chips).toHaveCount(3);
  await expect(chips.nth(0)).toContainText('lease.pdf');
  await expect(chips.nth(0)).toContainText('PDF');
  await expect(chips.nth(2).locator('img')).toBeVisible();
  // A chip goes with the keyboard too: removed, the file is not sent.
  await composer
    .getByTestId('attach-input')
    .setInputFiles([{ name: 'extra.txt', mimeType: 'text/plain', buffer: Buffer.from('not needed') }]);
  await expect(chips).toHaveCount(4);
  await composer.getByRole('button', { name: 'Remove extra.txt' }).focus();
  await page.keyboard.press('Enter');
  await expect(chips).toHaveCount(3);

  await composer.getByLabel('Your question').fill('What does the lease say, and what is in the photo?');
  await composer.getByLabel('Your question').press('Control+Enter');
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible({ timeout: 120_000 });
  expect(chatBodies()).toEqual([]);

  // The review says, per step, which files it gets; the user sets it: the image to Looker, the text to Reader.
  await editPlan(page, [
    { worker: 'w1', task: 'Describe the photo.', sees: [] },
    { worker: 'w2', task: 'Quote the files.', sees: [0] },
  ]);
  const setFiles = async (step: number, files: number[]) => {
    for (let file = 0; file < 3; file++)
      await editor.getByTestId(`edit-step-${step}-file-${file}`).setChecked(files.includes(file));
  };
  await setFiles(0, [2]);
  // The image ticked for Reader, which takes none, blocks the run, naming the step and the worker.
  await setFiles(1, [0, 1, 2]);
  await expect(editor.getByTestId('edit-step-1-issues')).toContainText('Step 1 gives "Reader"');
  await expect(editor.getByTestId('run-plan')).toBeDisabled();
  await setFiles(1, [0, 1]);
  await expect(editor.getByTestId('run-plan')).toBeEnabled();
  await editor.getByTestId('run-plan').click();

  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  // The answers used them: Looker saw one PNG of 40 × 30; Reader echoes the PDF's and the CSV's text.
  await expect(page.getByTestId('step-card-0')).toContainText('1 image: png 40x30');
  await expect(page.getByTestId('final-answer')).toContainText(CSV_MARK);
  await expect(page.getByTestId('final-answer')).toContainText(PDF_MARK);
  const [looker, reader] = chatBodies();
  expect(looker?.model).toBe('images');
  expect(looker?.body).not.toContain(CSV_MARK);
  expect(looker?.body).not.toContain(PDF_MARK);
  expect(reader?.model).toBe('echo');
  expect(reader?.body).not.toContain('image_url');
  await expect(page.getByTestId('step-files-0')).toHaveText('sent photo.png');

  // History keeps the run with its files.
  const runId = (await run.getAttribute('data-run-id')) ?? '';
  await page.goto('/#/history');
  await page.goto(`/#/run/${runId}`);
  await expect(page.getByTestId('run-files')).toContainText('lease.pdf');
  await expect(page.getByTestId('run-files')).toContainText('rent.csv');
  await expect(page.getByTestId('run-files')).toContainText('photo.png');
  await expect(page.getByTestId('step-files-1')).toHaveText('sent lease.pdf, rent.csv');

  // Exported with the files, and imported back (as another run) with them.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export JSON', exact: true }).click(),
  ]);
  const exported = JSON.parse(await readFile((await download.path()) ?? '', 'utf8'));
  expect(exported.files).toHaveLength(3);
  expect(exported.run.attachments.map((a: { name: string }) => a.name)).toEqual([
    'lease.pdf',
    'rent.csv',
    'photo.png',
  ]);
  exported.run.id = 'imported-run';
  await importRunFile(page, JSON.stringify(exported));
  await expect(page.getByTestId('history-item')).toHaveCount(2);
  await page.goto('/#/run/imported-run');
  await expect(page.getByTestId('run-files')).toContainText('photo.png');
  const stored = await page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('baton-runs');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction('attachments').objectStore('attachments').count();
          count.onsuccess = () => resolve(count.result);
        };
      }),
  );
  expect(stored).toBe(3);
});
