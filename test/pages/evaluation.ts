import { createSandboxRunner } from '../../src/evaluation/sandbox.ts';
import { scoreAnswer } from '../../src/evaluation/score.ts';

// Harness for test/browser/evaluation-sandbox.spec.ts: exposes the real sandbox runner to the test.
const runner = createSandboxRunner();
Object.assign(globalThis, { harness: { runner, scoreAnswer } });
document.body.dataset.ready = 'true';
