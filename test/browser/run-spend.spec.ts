import { type ScriptedModel, startProvider, type TestProvider } from '../provider/server.ts';
import { sampleRunExport } from './app-fixtures.ts';
import { answerAtOnce, chatRequestsFor, importRunFile } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { saveScreenshot } from './screenshots.ts';

// Spend and saving as the Watch screen shows them, on a run imported from a file and rerun against the
// local test provider over real HTTP (no conductor model needed: a rerun plans nothing).

let provider: TestProvider;

const SLOW_ECHO: ScriptedModel = {
  id: 'slow-echo',
  behaviour: { kind: 'echo' },
  latency: { firstTokenMs: 1500, perTokenMs: 300 },
};

test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'strict',
    models: [
      { id: 'echo', behaviour: { kind: 'echo' }, latency: { firstTokenMs: 300, perTokenMs: 40 } },
      // The full-disk tests act while step 0 runs: its few words take seconds, not half of one, so a
      // loaded machine still sees it running.
      SLOW_ECHO,
      { id: 'upper', behaviour: { kind: 'transform', fn: (s) => s.toUpperCase() } },
      {
        id: 'long',
        behaviour: { kind: 'fixed', text: Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ') },
        latency: { firstTokenMs: 100, perTokenMs: 60 },
      },
    ],
  });
});
test.afterAll(async () => {
  await provider?.close();
});

test.describe.configure({ mode: 'serial' });

/** The sample run, its workers pointed at the test provider (worker 0 at `model0`), imported and opened. */
async function openImportedRun(page: Page, model0?: string): Promise<string> {
  const file = JSON.parse(sampleRunExport()) as { run: { pool: { baseURL: string; model: string }[] } };
  for (const worker of file.run.pool) worker.baseURL = provider.baseURL;
  if (model0) file.run.pool[0]!.model = model0;
  await importRunFile(page, JSON.stringify(file));
  await expect(page.getByText('Run imported.')).toBeVisible();
  await page.getByRole('link', { name: 'Which answer is best?' }).click();
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'done');
  return (await run.getAttribute('data-run-id')) ?? '';
}

test('after reruns, the run totals count every request the ledger shows', async ({ page }) => {
  test.setTimeout(180_000);
  const runId = await openImportedRun(page);
  const run = page.getByTestId('run');
  // Rerun step 0 (and step 2, which sees it) twice: four requests in all.
  for (let i = 0; i < 2; i++) {
    await page.getByRole('button', { name: 'Rerun step 0' }).click();
    await expect(run).toHaveAttribute('data-phase', 'running');
    await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  }
  const totals = page.getByTestId('run-totals');
  await expect(totals.locator('div', { hasText: 'Requests' }).locator('dd')).toHaveText('4');
  // The step card counts its own two requests, not only the last answer.
  await expect(page.getByTestId('step-metrics-0')).toContainText('2 requests');

  await page.goto('/#/ledger');
  const rows = page.getByTestId('ledger-panel').locator('tbody tr', { hasText: runId.slice(0, 6) });
  await expect(rows).toHaveCount(4);
});

test('while a step streams, its card counts the output so far (≈ out and its cost), not ≈0 until the end', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await openImportedRun(page, 'long');
  await page.getByRole('button', { name: 'Rerun step 0' }).click();
  const card = page.getByTestId('step-card-0');
  await expect(card).toHaveAttribute('data-state', 'running');
  const metrics = page.getByTestId('step-metrics-0');
  // Mid-answer (300 tokens, 60 ms apart): the output counted so far, estimated, and what it costs.
  await expect(metrics).toHaveText(/≈[1-9]\d* out · ≈\$/, { timeout: 10_000 });
  const first = Number(/≈(\d+) out/.exec((await metrics.textContent()) ?? '')?.[1]);
  await expect(async () => {
    const now = Number(/≈(\d+) out/.exec((await metrics.textContent()) ?? '')?.[1]);
    expect(now).toBeGreaterThan(first);
  }).toPass({ timeout: 10_000 });
  expect(await card.getAttribute('data-state')).toBe('running');
  // Counted while it ran: the rest of the answer (up to 18 s of tokens) adds nothing to this test.
  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'cancelled', { timeout: 15_000 });
});

/**
 * The run store's writes throw QuotaExceededError with no message, as a browser's do when the quota is
 * used up (Chrome's often has none), once the test says the disk is full (`setDiskFull`; the ledger's
 * store stays writable, so requests still leave).
 * A reload empties the disk again.
 */
async function fillableDisk(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<typeof put>) {
      const full = (globalThis as { __diskFull?: boolean }).__diskFull;
      if (full && (this.name === 'steps' || this.name === 'runs')) {
        throw new DOMException('', 'QuotaExceededError');
      }
      return put.apply(this, args);
    };
  });
}

async function setDiskFull(page: Page, full: boolean): Promise<void> {
  await page.evaluate((value) => {
    (globalThis as { __diskFull?: boolean }).__diskFull = value;
  }, full);
}

/**
 * Reruns step 0 and fills the disk while it streams. Once the disk is full, the steps after it (step 2
 * reads step 0, on the same worker) need not be slow: their answers meet the full disk as well.
 */
async function rerunStep0AndFillDisk(page: Page): Promise<void> {
  provider.setModel(SLOW_ECHO);
  const sent = chatRequestsFor(provider, 'slow-echo');
  await page.getByRole('button', { name: 'Rerun step 0' }).click();
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'running');
  await setDiskFull(page, true);
  // Step 0's request is on its way with the slow latency (the provider reads a model as a request arrives).
  await expect.poll(() => chatRequestsFor(provider, 'slow-echo')).toBeGreaterThan(sent);
  answerAtOnce(provider, SLOW_ECHO);
}

/** Reruns step 0 and fills the disk while it streams: its answer is done on the page and not stored. */
async function rerunOnFullDisk(page: Page): Promise<void> {
  await rerunStep0AndFillDisk(page);
  await expect(page.getByTestId('run-not-saved')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
}

test('a full disk shows a banner on the run at once, and the run can still be exported from the page', async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  await fillableDisk(page);
  await openImportedRun(page, 'slow-echo');
  const run = page.getByTestId('run');
  await rerunStep0AndFillDisk(page);
  const banner = page.getByTestId('run-not-saved');
  await expect(banner).toBeVisible({ timeout: 30_000 });
  // The cause in words, not "(QuotaExceededError: )".
  await expect(banner).toContainText(
    "This run is not being saved (this browser's storage for Baton is full).",
  );
  await expect(banner).not.toContainText('QuotaExceededError');
  // What is in memory is kept: the run finishes on the page.
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await saveScreenshot(page, testInfo, 'run-not-saved.png');
  const download = page.waitForEvent('download');
  await banner.getByTestId('export-unsaved').click();
  const json = Buffer.concat(await (await (await download).createReadStream()).toArray()).toString('utf8');
  const exported = JSON.parse(json) as { steps: { index: number; state: string; text: string }[] };
  // The rerun's answer (the echo of step 0's task), which the store never got.
  expect(exported.steps[0]).toMatchObject({ state: 'done', text: 'Propose an answer.' });
});

test('an answer the full disk could not store is stored once space is freed, with nothing else writing', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await fillableDisk(page);
  const runId = await openImportedRun(page, 'slow-echo');
  await rerunOnFullDisk(page);
  // The run has ended: no write of its own is coming. Space is freed; the answer kept in memory is stored.
  await setDiskFull(page, false);
  await expect(page.getByTestId('run-not-saved')).toBeHidden({ timeout: 60_000 });
  await page.reload();
  await expect(page.getByTestId('unfinished-banner')).toBeHidden();
  await page.goto(`/#/run/${runId}`);
  await expect(page.getByTestId('step-card-0')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('step-card-0')).toContainText('Propose an answer.');
});

test('leaving with an answer only in memory asks first; after a reload the offer to resume says it pays again', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await fillableDisk(page);
  await openImportedRun(page, 'slow-echo');
  await rerunOnFullDisk(page);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  expect(dialogs).toEqual(['beforeunload']);
  // Step 0 or step 2 (it reads step 0, so it was rerun too), whichever the disk was full for at its end.
  const lost =
    /Step [02]'s answer arrived whole \(\d+ KB\) and was paid for, but could not be saved; it runs again and is paid for again\./;
  // The run as stored: not "Running" with a Cancel button, but interrupted, saying what was lost.
  const run = page.getByTestId('run');
  await expect(run).toHaveAttribute('data-phase', 'interrupted');
  await expect(page.getByTestId('run-phase')).toHaveText('Interrupted');
  await expect(page.getByTestId('cancel-run')).toHaveCount(0);
  await expect(run.getByRole('alert')).toContainText('This run stopped before it finished');
  await expect(run.getByRole('alert')).toContainText(lost);
  // Said with the offer to resume, before Resume is pressed.
  await page.goto('/#/ask');
  const banner = page.getByTestId('unfinished-banner');
  await expect(banner.getByTestId('lost-answer').first()).toContainText(lost);
  await expect(banner.getByTestId('resume-run')).toBeVisible();
  // History does not call it running either.
  await page.goto('/#/history');
  await expect(page.getByTestId('history-item').getByTestId('history-status')).toHaveText('interrupted');
});
