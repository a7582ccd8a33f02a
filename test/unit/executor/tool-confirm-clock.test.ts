import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { startRun } from '../../../src/executor/executor.ts';
import { stepTools } from '../../../src/tools/step-tools.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { toolEgress, trackerServer } from '../tools/tool-fixture.ts';

// The step's time limit is for the provider and the tool server, not for the person: while the user is
// asked before a destructive call, the step's clock stands still.

// Wide enough for the requests themselves on a loaded machine; the user's wait alone is longer still.
const STEP_LIMIT_MS = 3_000;
let provider: TestProvider;
let mcp: TestMcpServer;

beforeAll(async () => {
  provider = await startProvider({
    models: [
      {
        id: 'deleter',
        behaviour: { kind: 'echo' },
        toolCalls: {
          rounds: [[{ name: 'tracker__delete_issue', arguments: { id: 2 } }]],
          answer: 'Deleted.',
        },
      },
    ],
  });
  mcp = await startMcpServer();
});
afterAll(async () => {
  await provider.close();
  await mcp.close();
});

describe('the question before a destructive tool call', () => {
  it('does not count toward the step’s time limit: a yes given after the limit still makes the call', async () => {
    const { egress } = await toolEgress();
    let asked = 0;
    const handle = startRun({
      question: 'Delete issue 2.',
      pool: [workerSpec({ id: 'w', baseURL: provider.baseURL, model: 'deleter' })],
      transport: chatTransports(egress),
      stepTimeoutMs: STEP_LIMIT_MS,
      toolsFor: (step, index, _worker, runId) =>
        stepTools({
          egress,
          servers: [trackerServer(mcp)],
          grant: step.tools ?? [],
          runId,
          stepIndex: index,
          pageOrigin: 'http://localhost',
          // The user takes longer to answer than the whole step may take.
          confirm: async () => {
            asked++;
            await new Promise((resolve) => setTimeout(resolve, STEP_LIMIT_MS + 300));
            return true;
          },
        }),
      plan: { steps: [{ worker: 'w', task: 'Delete issue 2.', sees: [], tools: ['tracker.delete_issue'] }] },
    });
    const result = await handle.result;
    expect(asked).toBe(1);
    expect(result.steps[0]?.error).toBeUndefined();
    expect(result.steps[0]?.state).toBe('done');
    expect(result.steps[0]?.toolCalls).toEqual([{ tool: 'tracker.delete_issue', outcome: 'called' }]);
    expect(mcp.calls.map((c) => c.tool)).toEqual(['delete_issue']);
  });
});
