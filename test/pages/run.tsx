import { options, render } from 'preact';
import { createAppState, pageServices } from '../../src/app/app-state.ts';
import { isActive, newRunView } from '../../src/app/runs/run-model.ts';
import { dependencies } from '../../src/executor/dag.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { RunPanel } from '../../src/ui/RunPanel.tsx';
import { StepCard } from '../../src/ui/StepCard.tsx';
import { BRANCHES } from '../fixtures/branches-plan.ts';
import '../../src/ui/styles.css';

// Harness for bench/app-run.bench.ts: a plan run as the app runs a reviewed one (src/app/runs/runs.ts:
// executor, each worker's egress transport, vault, ledger, run store, the run view on screen), and the
// same DAG of requests made with bare `fetch`, from this one page, driven through `window.__run`.

// The app's own run state, built as src/main.ts builds it.
const { currentRun, drawnRun, streams, pendingReview, runReviewed } = createAppState(pageServices()).runs;

function worker(baseURL: string, model: string): WorkerSpec {
  return {
    id: 'w',
    label: 'Writer',
    strengths: '',
    providerId: 'custom',
    baseURL,
    model,
    maxConcurrency: 8,
    enabled: true,
  };
}

/** The run on screen, as the Ask screen shows it (the draw policy: src/app/runs/draw-timing.ts). */
const WORKER_ORDER = ['w'];

function Screen() {
  const view = drawnRun.value;
  return view ? (
    <RunPanel view={view} workerOrder={view.workerOrder ?? WORKER_ORDER} streams={streams} />
  ) : null;
}
const root = document.getElementById('app')!;
render(<Screen />, root);

/** Takes the run view off screen (or puts it back): tells the view's cost from the rest of the app's. */
function showView(shown: boolean): void {
  render(shown ? <Screen /> : null, root);
}

/** Resolves when run `id` is drawn as ended: its phase, and the wall time from Run to then. */
function ended(id: string, started: number): Promise<{ phase: string; ms: number }> {
  return new Promise((resolve) => {
    const dispose = drawnRun.subscribe((view) => {
      if (view?.id === id && !isActive(view.phase) && view.phase !== 'review') {
        const ms = performance.now() - started;
        queueMicrotask(() => dispose());
        resolve({ phase: view.phase, ms });
      }
    });
  });
}

/** The plan through the app: reviewed, then Run. ms from Run until the run view shows it ended. */
async function app(baseURL: string, model: string): Promise<{ phase: string; ms: number; error?: string }> {
  const pool = [worker(baseURL, model)];
  const id = crypto.randomUUID();
  currentRun.value = { ...newRunView(id, 'Write two things, then join them.', 'conductor'), phase: 'review' };
  pendingReview.value = { plan: BRANCHES, pool, limits: { maxSteps: 8, allowSelf: false } };
  const started = performance.now();
  const done = ended(id, started);
  await runReviewed(BRANCHES);
  const result = await done;
  const error = currentRun.value?.error;
  return error ? { ...result, error } : result;
}

/** One streamed chat request with bare fetch, read to its end. */
async function request(baseURL: string, model: string, task: string): Promise<void> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: task }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!response.ok || !response.body) throw new Error(`bare fetch: ${response.status}`);
  const reader = response.body.getReader();
  for (;;) if ((await reader.read()).done) return;
}

/** The same DAG with bare fetch: each step starts when the steps it sees have ended. */
async function bare(baseURL: string, model: string): Promise<{ phase: string; ms: number }> {
  const started = performance.now();
  const ends: Promise<void>[] = [];
  const deps = dependencies(BRANCHES.steps);
  for (const [index, step] of BRANCHES.steps.entries()) {
    const sees = deps[index]!.map((i) => ends[i]!);
    ends.push(Promise.all(sees).then(() => request(baseURL, model, step.task)));
  }
  await Promise.all(ends);
  return { phase: 'done', ms: performance.now() - started };
}

/** How many times each step's card has rendered, by step index (counted from the first call on). */
const cardRenders: Record<number, number> = {};
let counting = false;
function countCardRenders(): Record<number, number> {
  if (!counting) {
    counting = true;
    const before = options.diffed;
    options.diffed = (vnode) => {
      if (vnode.type === StepCard.renders) {
        const index = (vnode.props as unknown as { step: { index: number } }).step.index;
        cardRenders[index] = (cardRenders[index] ?? 0) + 1;
      }
      before?.(vnode);
    };
  }
  return { ...cardRenders };
}

declare global {
  var __run: {
    app: typeof app;
    bare: typeof bare;
    showView: typeof showView;
    countCardRenders: typeof countCardRenders;
  };
}
globalThis.__run = { app, bare, showView, countCardRenders };
