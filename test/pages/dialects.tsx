import { signal } from '@preact/signals';
import { render } from 'preact';
import { applyEvent, newRunView, type RunView } from '../../src/app/runs/run-model.ts';
import { chatTransports } from '../../src/egress/chat-transports.ts';
import { createEgress } from '../../src/egress/egress.ts';
import { openLedger } from '../../src/egress/ledger.ts';
import { startRun } from '../../src/executor/executor.ts';
import { type ProviderPreset, presetById } from '../../src/providers/catalog.ts';
import type { Plan } from '../../src/shared/plan/index.ts';
import type { WorkerSpec } from '../../src/shared/worker-spec.ts';
import { RunPanel } from '../../src/ui/RunPanel.tsx';
import { openVault } from '../../src/vault/vault.ts';
import '../../src/ui/styles.css';

// Harness for test/browser/provider-dialects.spec.ts: a plan run by the real executor, each worker's
// transport sending through egress (vault keys, ledger) in its provider's dialect, the run view and its step
// cards on screen as the Ask screen shows them. The catalog's cloud presets are pointed at test providers
// on 127.0.0.1, since the real origins cannot be reached here; everything else about each preset (its id,
// hence its dialect, its headers, its auth) is the catalog's. The plan has a step per dialect, more than
// the app's planning limit of 5, so the executor is started here with a higher one.
// Driven through `window.__dialects`.

/** A cloud preset whose base URL may be a test provider's; any other preset as the catalog has it. */
function presetFor(id: string): ProviderPreset | undefined {
  const preset = presetById(id);
  return preset?.kind === 'cloud' ? { ...preset, baseURLEditable: true } : preset;
}

const view = signal<RunView | undefined>(undefined);
let order: string[] = [];

function Screen() {
  const current = view.value;
  return current ? <RunPanel view={current} workerOrder={order} /> : null;
}
render(<Screen />, document.getElementById('app')!);

/** Runs `plan` on `pool` after saving each key; resolves with the run's status and failures. */
async function run(
  keys: { providerId: string; baseURL: string; key: string }[],
  pool: WorkerSpec[],
  plan: Plan,
): Promise<{ status: string; failed: { index: number; reason: string }[] }> {
  const suffix = crypto.randomUUID();
  const vault = await openVault(`dialects-vault-${suffix}`);
  const ledger = await openLedger(`dialects-ledger-${suffix}`);
  for (const { providerId, baseURL, key } of keys) await vault.saveKey({ providerId, origin: baseURL, key });
  const egress = createEgress({ vault, ledger, presetFor });
  const runId = `dialects-${suffix}`;
  const question = 'What is the capital of France?';
  order = pool.map((w) => w.id);
  view.value = { ...newRunView(runId, question, 'conductor'), phase: 'running', plannedSteps: plan.steps };
  const handle = startRun({
    runId,
    question,
    plan,
    pool,
    maxSteps: plan.steps.length,
    transport: chatTransports(egress),
    onEvent: (event) => {
      if (view.value) view.value = applyEvent(view.value, event);
    },
  });
  const result = await handle.result;
  return { status: result.status, failed: result.failed };
}

const api = { run };
export type DialectsHarness = typeof api;
(globalThis as { __dialects?: DialectsHarness }).__dialects = api;
document.body.dataset.ready = 'true';
