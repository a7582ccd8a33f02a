import { createHash } from 'node:crypto';
import { CLAUSE_7_ANSWER, CLAUSE_7_PAGE, contractPage } from '../fixtures/contract.ts';
import { textPdf } from '../fixtures/pdf-writer.ts';
import { importOneRun, logErrors, useServers } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Local reading: a long contract PDF (written for the test, with a text layer the app's own PDF reader
// reads), a question whose answer is on one page. The plan in review shows, for its step and file, the
// passages that will go; unticking one takes it out of the request the provider gets, and the step card
// says what was sent. The answer cites the page and a passage's label: each opens the passage from the
// file kept on this device; a citation of nothing sent stays text. In a thread, an earlier turn's answer
// (asked in Auto mode, then followed up) links them too.

/** Cites page 42, the first passage sent, a page the PDF does not have and a label past the passages sent. */
const ANSWER = `Clause 7: ${CLAUSE_7_ANSWER} notice [p. ${CLAUSE_7_PAGE}]. See also [1]; not [p. 99] nor [7].`;

const servers = useServers({
  cors: 'strict',
  models: [{ id: 'noted', behaviour: { kind: 'fixed', text: ANSWER } }],
});

const PAGES = 60;
const T0 = 1_750_000_000_000;

/** A plan not run yet, with the contract attached, as a `baton-run` export (its file read again on import). */
function plannedExport(pool: unknown[], bytes: Uint8Array): string {
  const id = createHash('sha256').update(bytes).digest('hex');
  const ref = { id, name: 'contract.pdf', kind: 'pdf', mime: 'application/pdf', size: bytes.byteLength };
  return JSON.stringify({
    format: 'baton-run',
    version: 1,
    exportedAt: new Date(T0).toISOString(),
    run: {
      id: 'passages-run',
      question: 'How long is the termination notice?',
      mode: 'conductor',
      pool,
      plan: {
        steps: [
          {
            worker: 'w1',
            task: 'What does clause 7 say?',
            sees: [],
            files: [{ file: 0, find: 'termination notice and delivery' }],
          },
        ],
      },
      planComplete: true,
      includeQuestion: true,
      status: 'planned',
      createdAt: T0,
      updatedAt: T0,
      totals: { promptTokens: 0, completionTokens: 0, cost: 0, steps: 1, done: 0, failed: 0, cancelled: 0 },
      attachments: [ref],
      attachmentIds: [id],
    },
    steps: [],
    files: [{ ...ref, base64: Buffer.from(bytes).toString('base64') }],
  });
}

test('plan review shows the passages a step will send of a long PDF; unticking one takes it out of the request; the answer’s citations open them here', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  const pool = [modelWorker('w1', servers.provider.baseURL, 'noted', 'Reader')];
  await seedApp(page, { pool, plan: { maxDepth: 0, maxSteps: 3 } });
  const pdf = textPdf(Array.from({ length: PAGES }, (_, i) => contractPage(i + 1, PAGES)));
  const link = await importOneRun(page, plannedExport(pool, pdf));
  await page.goto(link ?? '');
  const editor = page.getByTestId('plan-editor');
  await expect(editor).toBeVisible();

  // The step's file goes as passages: each with its place, first words and size, ticked.
  const passages = editor.getByTestId('edit-step-0-file-0-passages');
  await expect(passages).toContainText('contract.pdf:');
  await expect(passages).toContainText('passages');
  await expect(passages).toContainText(
    `page ${CLAUSE_7_PAGE}: “Page ${CLAUSE_7_PAGE} of ${PAGES}. Clause 7.`,
  );
  const boxes = passages.getByRole('checkbox');
  const count = await boxes.count();
  expect(count).toBeGreaterThanOrEqual(2);
  // The passage of page 42 stays; the first other one is unticked.
  const labels = await passages.locator('label').allTextContents();
  const other = labels.findIndex((text) => !text.startsWith(`page ${CLAUSE_7_PAGE}:`));
  const otherPlace = labels[other]?.split(':')[0] ?? '';
  await boxes.nth(other).uncheck();
  await expect(boxes.nth(other)).not.toBeChecked();
  await expect(passages).toContainText(`${count - 1} of`);

  await editor.getByTestId('run-plan').click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  // Its time is the seconds it ran here, not the months since the export's plan was made.
  await expect(run.getByTestId('turn-line')).toHaveText(/· (\d+(\.\d)? s|\d+ ms)$/);
  const bodies = servers.provider.requests
    .filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions')
    .map((r) => JSON.stringify(r.body));
  expect(bodies).toHaveLength(1);
  const [body] = bodies;
  expect(body).toContain(`place=\\"page ${CLAUSE_7_PAGE}\\"`);
  expect(body).toContain(CLAUSE_7_ANSWER);
  expect(body).not.toContain(`place=\\"${otherPlace}\\"`);
  expect(body).not.toContain(`${otherPlace.replace('page', 'Page')} of ${PAGES}.`);
  // The step card lists what was sent: the pages kept, and none of the one unticked.
  const sent = page.getByTestId('step-sent-0');
  await expect(sent).toContainText(`Sent contract.pdf: `);
  await expect(sent).toContainText(`page ${CLAUSE_7_PAGE}`);
  await expect(sent).not.toContainText(`${otherPlace},`);
  // The run's requests (the ledger's rows) say how many bytes of the contract left: what the step says it sent.
  const sentBytes = /passages, ([\d.]+ [KMG]?B)\)/.exec((await sent.textContent()) ?? '')?.[1];
  expect(sentBytes).toBeDefined();
  await expect(page.getByTestId('run-requests').getByTestId('ledger-documents')).toHaveText(
    `of which contract.pdf ${sentBytes}`,
  );

  // The request labels each passage as the answer cites it, and says how to cite.
  expect(body).toContain('Cite a passage you use by its label, as [1], or by page, as [p. ');
  const firstPlace = /cite=\\"\[1\]\\" place=\\"(page \d+)\\"/.exec(body ?? '')?.[1];
  expect(firstPlace).toBeDefined();
  // The answer's citations of passages sent are buttons; a page or label nobody was sent stays text.
  const answer = page.getByTestId('final-answer').getByTestId('answer');
  await expect(answer).toContainText('not [p. 99] nor [7].');
  const cites = answer.locator('button.cite-link');
  await expect(cites).toHaveText([`[p. ${CLAUSE_7_PAGE}]`, '[1]']);
  // The step's own card links them too.
  await expect(page.getByTestId('step-card-0').locator('button.cite-link')).toHaveText([
    `[p. ${CLAUSE_7_PAGE}]`,
    '[1]',
  ]);

  // The page's citation opens page 42's passage, read from the file on this device, and the PDF at that page.
  await cites.first().click();
  const dialog = page.getByTestId('passage-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('cited-passage')).toHaveCount(1);
  await expect(dialog).toContainText(`contract.pdf, page ${CLAUSE_7_PAGE}`);
  await expect(dialog).toContainText(
    `7.1 Either party may terminate this agreement by giving the other ${CLAUSE_7_ANSWER}`,
  );
  const href = (await dialog.getByTestId('open-pdf-page').getAttribute('href')) ?? '';
  expect(href).toMatch(new RegExp(`^blob:.*#page=${CLAUSE_7_PAGE}$`));
  // It opens in a tab of its own (the page's CSP keeps even its own blob: URLs out of fetch).
  const popup = page.waitForEvent('popup');
  await dialog.getByTestId('open-pdf-page').click();
  const tab = await popup;
  expect(tab.url()).toBe(href);
  await tab.close();
  await dialog.getByTestId('passage-dialog-close').click();
  await expect(dialog).toBeHidden();
  await expect(cites.first()).toBeFocused();

  // [1] is the first passage of the request, wherever it is in the file.
  await cites.nth(1).click();
  await expect(dialog).toContainText(`contract.pdf, ${firstPlace}`);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // Opening them sent nothing.
  expect(servers.provider.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
});

test('an earlier turn of a thread links its citations to the passages its run sent', async ({ page }) => {
  test.setTimeout(120_000);
  logErrors(page);
  await seedApp(page, { pool: [modelWorker('w1', servers.provider.baseURL, 'noted', 'Reader')] });
  const pdf = textPdf(Array.from({ length: PAGES }, (_, i) => contractPage(i + 1, PAGES)));
  // Auto mode with one worker: no conductor; the long PDF goes as the passages found for the question.
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer
    .getByTestId('attach-input')
    .setInputFiles([{ name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) }]);
  await expect(composer.getByTestId('attachment-chip')).toHaveCount(1);
  await composer.getByLabel('Your question').fill('How long is the termination notice?');
  await composer.getByLabel('Your question').press('Enter');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('step-sent-0')).toContainText(`page ${CLAUSE_7_PAGE}`);

  // After a follow-up, the first turn is an earlier turn: its answer's citations still open its passages.
  await page.getByTestId('follow-up-text').fill('Who may give it?');
  await page.getByTestId('follow-up-text').press('Enter');
  const earlier = page.getByTestId('thread-turn');
  await expect(earlier).toHaveCount(1);
  const cites = earlier.getByTestId('answer').locator('button.cite-link');
  await expect(cites).toHaveText([`[p. ${CLAUSE_7_PAGE}]`, '[1]']);
  await cites.first().click();
  const dialog = page.getByTestId('passage-dialog');
  await expect(dialog).toContainText(`contract.pdf, page ${CLAUSE_7_PAGE}`);
  await expect(dialog).toContainText(
    `7.1 Either party may terminate this agreement by giving the other ${CLAUSE_7_ANSWER}`,
  );
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // Its step card, opened in place, links them too.
  await earlier.getByTestId('turn-line').click();
  await expect(earlier.getByTestId('step-card-0').locator('button.cite-link')).toHaveText([
    `[p. ${CLAUSE_7_PAGE}]`,
    '[1]',
  ]);
});
