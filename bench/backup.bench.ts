// Backups (issue 43), over the real stores on fake-indexeddb in Node, a real S3-compatible server (s3rver)
// on 127.0.0.1, and egress with its ledger, as the page sends them:
// - p28-backup-increment: bytes uploaded by a backup after one new run, following a backup of 1,000 runs,
//   ÷ that run's own records (its run, step and History row, its thread, its file) as bytes. The index
//   must grow with the change, not with the backup.
// - p29-restore: restoring 1,000 runs with their files into an empty browser ÷ importing the same runs
//   from their JSON exports (History's import, run by run).
// - p29-restore-main-thread: the longest main-thread task while a page (the test build's harness
//   test/pages/backup.html, in headless Chromium) restores the same 1,000 runs from the bucket: the issue's
//   ≤ 50 ms. The page fetches the packs through egress; the restore worker (src/backup/restore-thread.ts)
//   opens them and writes the records, so the page's garbage, and V8's pauses to collect it, stay small.
//   p29-restore runs in Node, which has no Worker: the same code in-process (src/shared/pack-reader.ts).
import 'fake-indexeddb/auto';
import { chromium } from '@playwright/test';
import { IDBFactory } from 'fake-indexeddb';
import { exportRunJson, parseRunImport } from '../src/app/export.ts';
import { storeImported } from '../src/app/history.ts';
import { exportFile } from '../src/attachments/export.ts';
import { backUp } from '../src/backup/backup.ts';
import { openProfile } from '../src/backup/profile.ts';
import { restore } from '../src/backup/restore.ts';
import { openSyncState } from '../src/backup/sync-state.ts';
import { s3Target } from '../src/backup/targets/s3.ts';
import { BACKUP_S3 } from '../src/egress/backup-endpoints.ts';
import { createEgress } from '../src/egress/egress.ts';
import { openLedger } from '../src/egress/ledger.ts';
import { openRunStore } from '../src/records/run-store.ts';
import { openThreadStore } from '../src/records/thread-store.ts';
import { encodeRecord } from '../src/shared/record-bytes.ts';
import { openVault } from '../src/vault/vault.ts';
import { baseChromiumArgs, findChromium } from '../test/chromium.ts';
import { csvAttachment, runWithFiles } from '../test/fixtures/attachments.ts';
import { goodStep } from '../test/fixtures/run-records.ts';
import { workerSpec } from '../test/fixtures/worker-spec.ts';
import type { RestoreReport } from '../test/pages/backup.ts';
import { S3_KEY, startS3 } from '../test/unit/backup/servers.ts';
import { longestMainThreadTask, type TraceEvent } from './pdf-main-thread.bench.ts';
import { previewBuiltApp } from './site.ts';
import { round } from './stats.ts';
import type { Benchmark, BenchResult } from './types.ts';

const RUNS = 1_000;
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu '.repeat(30);
const PASSPHRASE = 'bench backup passphrase';
const NAMES = { runs: 'bench-runs', pool: 'bench-pool', learning: 'bench-learning', bench: 'bench-bench' };

/** Run `i`: a one-step run in a thread of its own, with a small CSV file of its own. */
async function seedRun(i: number) {
  const file = await csvAttachment(`table-${i}.csv`, `row,value\n${i},${WORDS.slice(0, 300)}\n`);
  const id = `run-${i}`;
  const run = runWithFiles(id, [file], {
    question: `Question ${i}: ${WORDS.slice(0, 150)}`,
    answer: `Answer ${i}: ${WORDS.slice(0, 1200)}`,
    plan: { steps: [{ worker: 'w1', task: 'Answer the question.', sees: [] }] },
    pool: [workerSpec({ id: 'w1', baseURL: 'http://127.0.0.1:9/v1', model: 'm' })],
    threadId: `thread-${i}`,
    turn: 0,
    createdAt: 1_750_000_000_000 + i * 1000,
    updatedAt: 1_750_000_000_000 + i * 1000 + 500,
  });
  const step = goodStep(id, 0, { task: 'Answer the question.', text: run.answer ?? '' });
  return { run, step, file };
}

async function seed(from: number, to: number): Promise<void> {
  const runs = await openRunStore(NAMES.runs);
  const threads = await openThreadStore(NAMES.runs);
  for (let i = from; i < to; i++) {
    const { run, step, file } = await seedRun(i);
    await runs.putAttachments([file]);
    await runs.putRunAndSteps(run, [step]);
    await threads.putThread({
      id: `thread-${i}`,
      schema: 1,
      title: run.question.slice(0, 60),
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
    });
  }
  runs.close();
  threads.close();
}

/** A browser's backup services against the server at `url`. */
async function browserFor(url: string) {
  const vault = await openVault('bench-vault');
  await vault.saveKey({ providerId: BACKUP_S3, origin: url, key: 'S3RVER:S3RVER' });
  const egress = createEgress({ vault, ledger: await openLedger('bench-ledger'), fetchImpl: fetch });
  const target = s3Target({ endpoint: url, bucket: 'baton', region: 'us-east-1' }, egress);
  const state = await openSyncState('bench-backup');
  return { target, state };
}

async function backUpOnce(b: Awaited<ReturnType<typeof browserFor>>) {
  const profile = await openProfile(NAMES);
  try {
    return await backUp({ ...b, profile, passphrase: PASSPHRASE });
  } finally {
    profile.close();
  }
}

async function increment(): Promise<BenchResult> {
  globalThis.indexedDB = new IDBFactory();
  const server = await startS3();
  try {
    await seed(0, RUNS);
    const b = await browserFor(server.url);
    const first = await backUpOnce(b);
    await seed(RUNS, RUNS + 1);
    // That run's own records, as bytes: what a backup of it cannot send less than (before sealing).
    const profile = await openProfile(NAMES);
    const fileId = (await seedRun(RUNS)).file.id;
    const ownKeys = [`run:run-${RUNS}`, `thread:thread-${RUNS}`, `file:${fileId}`];
    let ownBytes = 0;
    for (const unit of await profile.list()) {
      if (ownKeys.includes(unit.key)) ownBytes += (await encodeRecord(await unit.read())).byteLength;
    }
    profile.close();
    const next = await backUpOnce(b);
    return {
      value: round(next.uploadedBytes / ownBytes),
      goal: 1.5,
      unit: '× the run’s own bytes',
      better: 'lower',
      notes: `uploaded ${next.uploadedBytes} B in ${next.uploadedObjects} objects for a run of ${ownBytes} B; the first backup of ${RUNS} runs uploaded ${first.uploadedBytes} B`,
    };
  } finally {
    await server.close();
  }
}

async function restoreVsImport(): Promise<BenchResult> {
  globalThis.indexedDB = new IDBFactory();
  const server = await startS3();
  try {
    await seed(0, RUNS);
    const exports: string[] = [];
    {
      const runs = await openRunStore(NAMES.runs);
      for (let i = 0; i < RUNS; i++) {
        const stored = await runs.getRun(`run-${i}`);
        if (!stored) throw new Error(`run-${i} was not stored`);
        const files = await runs.getAttachments(stored.run.attachments ?? []);
        exports.push(exportRunJson(stored.run, stored.steps, await Promise.all(files.map(exportFile))));
      }
      runs.close();
    }
    await backUpOnce(await browserFor(server.url));

    // The JSON import of the same runs into an empty browser, as History imports a run's file.
    globalThis.indexedDB = new IDBFactory();
    let t = performance.now();
    const store = await openRunStore(NAMES.runs);
    for (const text of exports) {
      const parsed = parseRunImport(text);
      if (!parsed.ok) throw new Error(parsed.error);
      await storeImported(store, parsed.data);
    }
    store.close();
    const importMs = performance.now() - t;

    // The restore into an empty browser (the keys derived from the passphrase once, as a user's would be).
    globalThis.indexedDB = new IDBFactory();
    const b = await browserFor(server.url);
    const profile = await openProfile(NAMES);
    t = performance.now();
    const result = await restore({ ...b, profile, passphrase: PASSPHRASE });
    const restoreMs = performance.now() - t;
    profile.close();
    if (result.problems.length) throw new Error(result.problems.join('\n'));
    return {
      value: round(restoreMs / importMs),
      goal: 1.5,
      unit: '× the JSON import',
      better: 'lower',
      notes: `restore ${Math.round(restoreMs)} ms (${result.restored} records, one PBKDF2 derivation included) vs JSON import ${Math.round(importMs)} ms of ${RUNS} runs with files`,
    };
  } finally {
    await server.close();
  }
}

/** V8's collections, each a whole pause within a task (in the `v8` trace category). */
const GC_EVENTS = new Set(['MajorGC', 'MinorGC', 'V8.GCPhantomHandleProcessingCallback']);

/**
 * The longest main-thread task's thread time less the garbage collection within it, and the longest
 * collection: whether a long task was the restore's own work or V8 collecting what it let go (a pause
 * whose length grows when the concurrent marking threads get no core, as on this shared machine).
 */
function longestLessGc(events: readonly TraceEvent[], pid: number, tid: number): { cpu: number; gc: number } {
  const onMain = events.filter((e) => e.ph === 'X' && e.pid === pid && e.tid === tid);
  const tasks = onMain.filter((e) => e.name === 'RunTask').sort((a, b) => a.ts - b.ts);
  const gcIn = new Map<TraceEvent, number>();
  let gc = 0;
  for (const e of onMain) {
    if (!GC_EVENTS.has(e.name)) continue;
    const cpu = (e.tdur ?? e.dur ?? 0) / 1000;
    gc = Math.max(gc, cpu);
    // The task holding it: the last that starts at or before it.
    let lo = 0;
    let hi = tasks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((tasks[mid] as TraceEvent).ts <= e.ts) lo = mid;
      else hi = mid - 1;
    }
    const task = tasks[lo];
    if (task) gcIn.set(task, (gcIn.get(task) ?? 0) + cpu);
  }
  const cpu = Math.max(0, ...tasks.map((t) => (t.tdur ?? 0) / 1000 - (gcIn.get(t) ?? 0)));
  return { cpu, gc };
}

/**
 * The longest task the page's main thread ran while it restored 1,000 runs with their files from the
 * bucket (backed up from Node, as p29-restore does), by Chromium's own task timings (CDP trace, `RunTask`
 * on the page's `CrRendererMain`, as p18): its thread time is the value, its wall time (which adds the wait
 * for a core on a shared machine) and the Long Tasks API's entries are in the notes.
 */
async function restoreMainThread(): Promise<BenchResult> {
  globalThis.indexedDB = new IDBFactory();
  const server = await startS3('baton', { cors: true });
  const site = await previewBuiltApp('dist-bench-p29', { mode: 'test' });
  const browser = await chromium.launch({ executablePath: findChromium(), args: baseChromiumArgs });
  try {
    await seed(0, RUNS);
    await backUpOnce(await browserFor(server.url));
    const page = await browser.newPage();
    await page.goto(`${site.url}/test/pages/backup.html`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    await browser.startTracing(page, {
      categories: ['disabled-by-default-devtools.timeline', 'devtools.timeline', 'toplevel', 'v8'],
    });
    // A string, not a function: tsx would wrap the function's inner names in a helper the page lacks.
    const bucket = JSON.stringify({ url: server.url, key: S3_KEY, passphrase: PASSPHRASE });
    const report = (await page.evaluate(`globalThis.__backup.restoreFrom(${bucket})`)) as RestoreReport;
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
    if (report.problems.length) throw new Error(report.problems.join('\n'));
    const longest = longestMainThreadTask(trace.traceEvents, '/test/pages/backup.html');
    const restoreOwn = longestLessGc(trace.traceEvents, longest.pid, longest.tid);
    return {
      value: round(longest.cpu),
      goal: 50,
      unit: 'ms',
      better: 'lower',
      notes:
        `restore of ${RUNS} runs with files (${report.restored} records) in ${Math.round(report.ms)} ms in the page; ` +
        `longest main-thread task ${round(longest.cpu)} ms thread time, ${round(longest.wall)} ms wall time, of ${longest.tasks} tasks; ` +
        `less the garbage collection in it, the longest is ${round(restoreOwn.cpu)} ms (the longest collection pause ${round(restoreOwn.gc)} ms); ` +
        `Long Tasks API (wall): ${report.longTasks.length} over 50 ms` +
        (report.longTasks.length ? ` (${report.longTasks.map(round).join(', ')} ms)` : ''),
    };
  } finally {
    await browser.close();
    await site.close();
    await server.close();
  }
}

export const benchmarks: Benchmark[] = [
  { id: 'p28-backup-increment', title: 'Backup after one new run (÷ its own bytes)', run: increment },
  { id: 'p29-restore', title: 'Restore 1,000 runs (÷ their JSON import)', run: restoreVsImport },
  {
    id: 'p29-restore-main-thread',
    title: 'Longest main-thread task while a page restores 1,000 runs',
    run: restoreMainThread,
  },
];
