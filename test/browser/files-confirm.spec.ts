import { logErrors, useServers } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// Issue 38, item 9: with plan review off (the default), nothing asked before a file went to a worker.
// Now a plan nobody reviewed that sends a file to a provider the user has not sent files to asks first, in
// one line on the run view. Declined, the run stops before the step with the file (nothing is sent);
// "don't ask again" is kept per provider. Auto mode answers with the one worker, no conductor model.

const servers = useServers({ cors: 'strict', models: [{ id: 'echo', behaviour: { kind: 'echo' } }] });
const chats = () =>
  servers.provider.requests.filter((r) => r.method === 'POST').map((r) => JSON.stringify(r.body));
const MARK = 'WOMBAT-2291';

async function askWithFile(page: Page, question: string) {
  await page.goto('/#/ask');
  const composer = page.getByTestId('composer');
  await composer.getByLabel('Auto').check();
  await composer
    .getByTestId('attach-input')
    .setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(`The code is ${MARK}.`) },
    ]);
  await expect(composer.getByTestId('attachment-chip')).toHaveCount(1);
  await composer.getByLabel('Your question').fill(question);
  await composer.getByLabel('Your question').press('Enter');
}

test('a file asks before it goes to a provider it has not been sent to: declined stops the run, remembered asks no more', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  await seedApp(page, {
    pool: [modelWorker('w1', servers.provider.baseURL, 'echo', 'Echo')],
    filesNew: true,
  });
  const host = new URL(servers.provider.baseURL).host;

  // Declined (Escape, where the focus starts: "Don't send"): the run stops, and nothing was sent.
  await askWithFile(page, 'What is the code?');
  const confirm = page.getByTestId('files-confirm');
  await expect(confirm).toContainText(`Send notes.txt to ${host} (Echo)?`);
  await expect(confirm.getByTestId('files-decline')).toBeFocused();
  expect(chats()).toEqual([]);
  await page.keyboard.press('Escape');
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'cancelled');
  await expect(run).toContainText(`Stopped before sending notes.txt to ${host}: you chose not to send it.`);
  await expect(confirm).toHaveCount(0);
  expect(chats()).toEqual([]);

  // Asked again (declining remembered nothing); sent, with "don't ask again for this provider".
  await askWithFile(page, 'What is the code, then?');
  await expect(confirm).toBeVisible();
  expect(chats()).toEqual([]);
  await confirm.getByTestId('files-remember').check();
  await confirm.getByTestId('files-send').click();
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  expect(chats()).toHaveLength(1);
  expect(chats()[0]).toContain(MARK);

  // Remembered, after a reload too: the next file goes without a question.
  await page.reload();
  await askWithFile(page, 'And once more?');
  await expect.poll(() => chats().length, { timeout: 60_000 }).toBe(2);
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(confirm).toHaveCount(0);
  expect(chats()[1]).toContain(MARK);
});
