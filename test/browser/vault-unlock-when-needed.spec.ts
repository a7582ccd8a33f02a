import { startProvider, type TestProvider } from '../provider/server.ts';
import {
  askQuestion,
  chatRequestsFor,
  loadTinyConductor,
  logErrors,
  saveKeyUnderPassphrase,
  useServers,
} from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// After a reload the vault is locked. The passphrase is asked for when a step whose worker sends a saved
// key is about to be sent, never while the plan is still being written, never for a plan of workers that
// send no key (a local server), and once for the page's life: the tiny conductor plans, real HTTP.

const KEY = 'sk-unlock-once-0123456789abcd';
const PASS = 'correct horse battery staple';
const servers = useServers({ cors: 'strict', apiKey: KEY });
let keyless: TestProvider;

test.beforeAll(async () => {
  keyless = await startProvider({ cors: 'strict' });
});
test.afterAll(async () => {
  await keyless?.close();
});

/** Counts the unlock prompt's openings on this page, from before the app starts. */
async function countPrompts(page: Page): Promise<() => Promise<number>> {
  await page.addInitScript(() => {
    const showModal = HTMLDialogElement.prototype.showModal;
    HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
      const counts = globalThis as { __unlockPrompts?: number };
      if (this.dataset.testid === 'unlock-prompt') counts.__unlockPrompts = (counts.__unlockPrompts ?? 0) + 1;
      return showModal.call(this);
    };
  });
  return () => page.evaluate(() => (globalThis as { __unlockPrompts?: number }).__unlockPrompts ?? 0);
}

/** `pool` seeded, the keyed provider's key saved under PASS, then a reload: the vault is locked. */
async function lockedAfterReload(page: Page, worker: 'keyed' | 'keyless'): Promise<void> {
  const baseURL = worker === 'keyed' ? servers.provider.baseURL : keyless.baseURL;
  await seedApp(page, {
    pool: [modelWorker('w1', baseURL, 'echo', 'Echo')],
    plan: { maxDepth: 0, maxSteps: 2 },
  });
  await page.goto('/#/settings');
  await saveKeyUnderPassphrase(page, servers.provider.baseURL, KEY, PASS);
  await page.reload();
  await loadTinyConductor(page, servers.models.url);
}

test('a plan whose workers send no key runs without asking for the passphrase', async ({ page }) => {
  test.setTimeout(300_000);
  logErrors(page);
  const prompts = await countPrompts(page);
  await lockedAfterReload(page, 'keyless');
  await askQuestion(page, 'Say hello.');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  await expect(page.getByTestId('final-answer')).toBeVisible();
  expect(chatRequestsFor(keyless, 'echo')).toBeGreaterThan(0);
  expect(await prompts()).toBe(0);
  // The vault was never needed, so it is still locked.
  await page.goto('/#/settings');
  await expect(page.getByTestId('vault-panel').getByTestId('unlock')).toBeVisible();
});

test('a plan with a keyed worker asks once, when its step is sent; the next question does not ask', async ({
  page,
}) => {
  test.setTimeout(300_000);
  logErrors(page);
  const prompts = await countPrompts(page);
  await lockedAfterReload(page, 'keyed');
  await askQuestion(page, 'Say hello.');
  const prompt = page.getByRole('dialog', { name: 'Unlock the vault' });
  await expect(prompt).toBeVisible({ timeout: 120_000 });
  // Asked once the plan had a step to send, not while it was being written.
  await expect(page.getByTestId('run')).not.toHaveAttribute('data-phase', 'planning');
  await prompt.getByLabel('Passphrase').fill(PASS);
  await prompt.getByRole('button', { name: 'Unlock' }).click();
  await expect(prompt).toBeHidden();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  expect(servers.provider.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

  const before = chatRequestsFor(servers.provider, 'echo');
  await askQuestion(page, 'Say goodbye.');
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', /done|partial/, { timeout: 120_000 });
  expect(chatRequestsFor(servers.provider, 'echo')).toBeGreaterThan(before);
  expect(await prompts()).toBe(1);
});
