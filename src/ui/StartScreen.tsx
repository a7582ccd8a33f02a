import { localWorker } from '../app/pool.ts';
import type { AppRouter } from '../app/router.ts';
import type { Runs } from '../app/runs/runs.ts';
import { useAppState } from './app-context.ts';
import { CapabilityPanel } from './CapabilityPanel.tsx';
import { ConductorSetup } from './ConductorSetup.tsx';

export const DEMO_QUESTION = 'Explain in two sentences why the sky is blue.';

/** Runs the offline demo: the conductor plans, the on-device `local` worker answers. No key, no network. */
function startDemo(ask: Runs['ask'], navigate: AppRouter['navigate'], markOnboarded: () => void): void {
  markOnboarded();
  navigate({ name: 'ask' });
  void ask({ question: DEMO_QUESTION, mode: 'conductor', review: false }, [localWorker()]);
}

/** First run: what this device can do, the conductor model, the pool, and a one-click demo. */
export function StartScreen() {
  const app = useAppState();
  const { ask } = app.runs;
  const { navigate } = app.router;
  const { markOnboarded } = app.prefs;
  const { capabilities } = app.device;
  const ready = app.conductor.state.value.status === 'ready';
  const cloudWorkers = app.pool.enabledPool.value;
  return (
    <div data-testid="start-screen">
      <h1 style={{ fontSize: '1.5rem', margin: '0 0 0.25rem' }}>Welcome to Baton</h1>
      <p class="muted" style={{ marginTop: 0 }}>
        A small model on this device plans a short workflow for your pool of cloud models; each step runs from
        this page with your own keys. Planning never leaves the device.
      </p>
      <div class="grid-2">
        <CapabilityPanel caps={capabilities.value} />
        <ConductorSetup />
      </div>
      <div class="grid-2">
        <section class="card" aria-labelledby="pool-title">
          <h2 id="pool-title">Your pool</h2>
          <p data-testid="pool-summary">
            {cloudWorkers.length === 0
              ? 'No cloud workers yet. Add providers and keys to let the conductor use them.'
              : `${cloudWorkers.length} worker${cloudWorkers.length === 1 ? '' : 's'}: ${cloudWorkers.map((w) => w.label).join(', ')}.`}
          </p>
          <a class="button" href="#/settings">
            Set up providers and keys
          </a>
        </section>
        <section class="card" aria-labelledby="demo-title">
          <h2 id="demo-title">Try it offline</h2>
          <p>
            The conductor plans and the on-device model answers: no key and, once the model is cached, no
            network.
          </p>
          <button
            type="button"
            class="primary"
            disabled={!ready}
            onClick={() => startDemo(ask, navigate, markOnboarded)}
            data-testid="offline-demo"
          >
            Run the offline demo
          </button>
          {!ready && <p class="field-hint">Load a conductor model first.</p>}
        </section>
      </div>
      <p>
        <button
          type="button"
          onClick={() => {
            markOnboarded();
            navigate({ name: 'ask' });
          }}
        >
          Continue to Ask →
        </button>
      </p>
    </div>
  );
}
