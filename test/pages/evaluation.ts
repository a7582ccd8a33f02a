import { scoreAnswer } from '../../src/evaluation/score.ts';
import { createSandboxRunner } from '../../src/sandbox/code-runner.ts';

// Harness for test/browser/evaluation-sandbox.spec.ts and evaluation-attacks.spec.ts: exposes the real sandbox runner to the test.
// ?sandbox=<origin> serves the runner from another origin (another site gets its own process).
const origin = new URLSearchParams(location.search).get('sandbox') ?? undefined;
const runner = createSandboxRunner(origin ? { origin } : {});
Object.assign(globalThis, { harness: { runner, scoreAnswer } });
document.body.dataset.ready = 'true';
