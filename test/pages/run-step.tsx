import { render } from 'preact';
import { createAppState, pageServices } from '../../src/app/app-state.ts';
import { RUN_TOOL_CHOICE } from '../../src/app/pool.ts';
import { isActive, newRunView } from '../../src/app/runs/run-model.ts';
import { codeRunnerWorker } from '../../src/executor/code-runner-worker.ts';
import { planRun, RunStepTransport } from '../../src/executor/run-step.ts';
import type { Execution } from '../../src/sandbox/code-runner.ts';
import type { Plan } from '../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { RunPanel } from '../../src/ui/RunPanel.tsx';
import '../../src/ui/styles.css';

// Harness for test/browser/run-step.spec.ts: a reviewed plan run as the app runs one (src/app/runs.ts: the
// executor, each worker's egress transport, the `run` worker's sandbox, ledger, run store, the run view on
// screen), driven through `window.harness`.

// The sandbox tool is opt-in (Settings → Pool); this page tests it.
localStorage.setItem(RUN_TOOL_CHOICE, '1');
const services = pageServices();
const { currentRun, drawnRun, pendingReview, runReviewed } = createAppState(services).runs;

function worker(id: string, label: string, baseURL: string, model: string): WorkerSpec {
  return { id, label, strengths: '', providerId: 'custom', baseURL, model, maxConcurrency: 2, enabled: true };
}

function Screen() {
  const view = drawnRun.value;
  return view ? <RunPanel view={view} workerOrder={view.workerOrder ?? []} /> : null;
}
render(<Screen />, document.getElementById('app')!);

function ended(id: string): Promise<string> {
  return new Promise((resolve) => {
    const dispose = drawnRun.subscribe((view) => {
      if (view?.id === id && !isActive(view.phase) && view.phase !== 'review') {
        queueMicrotask(() => dispose());
        resolve(view.phase);
      }
    });
  });
}

/**
 * Runs `plan` over a coder and a fixer of the test provider (its models `coder` and `fixer` unless named)
 * and the `run` worker; the run's id and phase.
 */
async function run(
  baseURL: string,
  plan: Plan,
  models: { w1?: string; w2?: string } = {},
): Promise<{ id: string; phase: string; answer?: string }> {
  const pool = [
    worker('w1', 'Coder', baseURL, models.w1 ?? 'coder'),
    codeRunnerWorker(),
    worker('w2', 'Fixer', baseURL, models.w2 ?? 'fixer'),
  ];
  const id = crypto.randomUUID();
  currentRun.value = { ...newRunView(id, 'Write is_leap(year) in Python.', 'conductor'), phase: 'review' };
  pendingReview.value = { plan, pool, limits: { maxSteps: 5, allowSelf: false } };
  const done = ended(id);
  await runReviewed(plan);
  const phase = await done;
  const answer = currentRun.value?.answer;
  return answer === undefined ? { id, phase } : { id, phase, answer };
}

/** The ledger's entries for one run. */
async function ledger(runId: string) {
  return (await services.ledger()).list({ runId });
}

/** Runs the code of `answer` (its last fenced block) in the page's sandbox, as a run step would. */
async function check(answer: string): Promise<Execution | string> {
  const plan = planRun([
    { role: 'assistant', content: answer },
    { role: 'user', content: 'Run it.' },
  ]);
  if (plan.kind === 'nothing') return plan.why;
  const sandbox = await services.codeSandbox!();
  return sandbox.execute({ ...plan.request, timeoutMs: 10_000 });
}

/** The answer of a run step that sees `answer`, with `task` as its own task and a time limit of `timeoutMs`. */
async function answerOf(answer: string, task: string, timeoutMs: number): Promise<string> {
  const transport = new RunStepTransport(() => services.codeSandbox!(), timeoutMs);
  const messages = [
    { role: 'user' as const, content: 'Write the code.' },
    { role: 'assistant' as const, content: answer },
    { role: 'user' as const, content: task },
  ];
  let text = '';
  const request = { messages, signal: new AbortController().signal, runId: 'probe', stepIndex: 1 };
  for await (const event of transport.stream(codeRunnerWorker(), request))
    if (event.type === 'delta') text += event.text;
  return text;
}

Object.assign(globalThis, { harness: { run, ledger, check, answerOf } });
document.body.dataset.ready = 'true';
