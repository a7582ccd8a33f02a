import { importTaskSet } from '../../src/evaluation/importers/index.ts';
import { scoreAnswer } from '../../src/evaluation/score.ts';
import { createSandboxRunner } from '../../src/sandbox/code-runner.ts';

// Harness for test/browser/python-sandbox.spec.ts: the real importers, scorer and sandbox runner (with
// Pyodide from this build) for the test to drive.
const runner = createSandboxRunner();
Object.assign(globalThis, {
  harness: {
    runner,
    score: (task: Parameters<typeof scoreAnswer>[0], response: string, timeoutMs: number) =>
      scoreAnswer(task, response, runner, timeoutMs),
    tasks: async (text: string, fileName: string) => (await importTaskSet(text, fileName)).tasks,
  },
});
document.body.dataset.ready = 'true';
