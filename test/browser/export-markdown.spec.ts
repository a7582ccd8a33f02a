import { marked } from 'marked';
import { HOSTILE_ANSWER } from '../fixtures/hostile-answer.ts';
import { sampleRunExport } from './app-fixtures.ts';
import { importRunFile } from './app-steps.ts';
import { expect, test } from './app-test.ts';

// A run exported as Markdown keeps its answers' formatting, and stays inert in a viewer that renders
// Markdown to HTML and sanitises nothing: marked, its output put straight into a page.

test('the Markdown export keeps formatting and renders inert, unsanitised, in a browser', async ({
  page,
  context,
}) => {
  const formatted = '## Plan\n\n| Step | Who |\n|---|---|\n| 1 | me |\n\n- one\n- two';
  await importRunFile(
    page,
    sampleRunExport({ answer0: `${formatted}\n\n${HOSTILE_ANSWER}`, question: 'Hostile answer' }),
  );
  await page.getByRole('link', { name: 'Hostile answer' }).click();
  await expect(page.getByTestId('final-answer')).toBeVisible();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export Markdown' }).click();
  const markdown = Buffer.concat(await (await (await download).createReadStream()).toArray()).toString(
    'utf8',
  );

  // A viewer with no sanitiser: the HTML marked makes of it, as a page of its own.
  const html = await marked.parse(markdown, { gfm: true });
  const viewer = await context.newPage();
  const dialogs: string[] = [];
  const requests: string[] = [];
  viewer.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  viewer.on('request', (request) => requests.push(request.url()));
  await viewer.route('**/*', (route) => route.abort());
  await viewer.setContent(`<!doctype html><html><body>${html}</body></html>`);
  await viewer.waitForTimeout(500);

  // The formatting came through: the step answer's heading, table and list.
  await expect(viewer.getByRole('heading', { name: 'Plan' })).toHaveCount(1);
  await expect(viewer.getByRole('table').first()).toContainText('Who');
  await expect(viewer.getByRole('listitem').filter({ hasText: 'two' }).first()).toBeVisible();
  // And nothing ran or loaded.
  expect(await viewer.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(requests.filter((url) => !url.startsWith('data:'))).toEqual([]);
  for (const tag of ['script', 'img', 'iframe', 'svg', 'style', 'math', 'object', 'embed']) {
    await expect(viewer.locator(tag), `no <${tag}>`).toHaveCount(0);
  }
  const active = await viewer.evaluate(() =>
    [...document.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes]
        .filter((a) => /^on/i.test(a.name) || /^\s*(javascript|data):/i.test(a.value) || a.name === 'srcdoc')
        .map((a) => `${el.tagName} ${a.name}=${a.value}`),
    ),
  );
  expect(active).toEqual([]);
  // The corpus is still there to read, as text.
  await expect(viewer.locator('body')).toContainText('<script>window.__pwned');
});
