import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTransports } from '../../../src/egress/chat-transports.ts';
import { startRun } from '../../../src/executor/executor.ts';
import type { ReplanInput } from '../../../src/executor/types.ts';
import { stepTools } from '../../../src/tools/step-tools.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { toolEgress, trackerServer } from '../tools/tool-fixture.ts';

// A tool's result reaches the step that called it and no one else: not a step that does not see it, not
// one that sees it (that one gets the step's answer only), not the conductor checking the workflow.

const MARK = 'ZEBRA-TOOL-4411';
const ANSWER = 'Two issues mention login.';
let provider: TestProvider;
let mcp: TestMcpServer;

beforeAll(async () => {
  provider = await startProvider({
    models: [
      {
        id: 'searcher',
        behaviour: { kind: 'echo' },
        toolCalls: {
          rounds: [[{ name: 'tracker__search_issues', arguments: { query: 'login' } }]],
          answer: ANSWER,
        },
      },
      // Asks for the tool too, but its step was granted nothing: it is offered no tools, so it answers.
      {
        id: 'ungranted',
        behaviour: { kind: 'echo' },
        toolCalls: { rounds: [[{ name: 'tracker__search_issues', arguments: { query: 'login' } }]] },
      },
    ],
  });
  mcp = await startMcpServer({ searchResult: () => `${MARK}: #1 Login page times out` });
});
afterAll(async () => {
  await provider.close();
  await mcp.close();
});

describe('tool results stay with their step', () => {
  it('are in no other step’s request and not in the conductor’s input; an ungranted step is offered no tools', async () => {
    const { egress, ledger } = await toolEgress();
    const worker = (id: string, model: string) => workerSpec({ id, baseURL: provider.baseURL, model });
    const replans: ReplanInput[] = [];
    const handle = startRun({
      question: 'Which issues mention login?',
      pool: [worker('tools', 'searcher'), worker('plain', 'echo'), worker('other', 'ungranted')],
      transport: chatTransports(egress),
      conductor: {
        async replan(input) {
          replans.push(input);
          return [];
        },
      },
      toolsFor: (step, index, _worker, runId) =>
        step.tools
          ? stepTools({
              egress,
              servers: [trackerServer(mcp)],
              grant: step.tools,
              runId,
              stepIndex: index,
              pageOrigin: 'http://localhost',
              confirm: async () => true,
            })
          : undefined,
      plan: {
        steps: [
          { worker: 'tools', task: 'Search the tracker.', sees: [], tools: ['tracker.search_issues'] },
          { worker: 'plain', task: 'Say hello.', sees: [] },
          { worker: 'other', task: 'Summarise.', sees: [0] },
          { worker: 'self', task: 'Check.', sees: 'all' },
        ],
      },
    });
    const result = await handle.result;
    expect(result.steps.map((s) => s.state)).toEqual(['done', 'done', 'done', 'done']);
    // The step records which tool it called and how it went; no step records a result.
    expect(result.steps.map((s) => s.toolCalls)).toEqual([
      [{ tool: 'tracker.search_issues', outcome: 'called' }],
      undefined,
      undefined,
      undefined,
    ]);
    expect(mcp.calls).toHaveLength(1);
    const requests = provider.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'))
      .map((r) => r.body as { model: string; tools?: unknown });
    const byModel = (model: string) =>
      requests.filter((r) => r.model === model).map((r) => JSON.stringify(r));
    // The step that called it: the result went back in its second request.
    expect(byModel('searcher')).toHaveLength(2);
    expect(byModel('searcher')[1]).toContain(MARK);
    // A step that does not see it, and one that sees the step: neither has the result; the latter has the answer.
    expect(byModel('echo').join('')).not.toContain(MARK);
    expect(byModel('ungranted')).toHaveLength(1);
    expect(byModel('ungranted')[0]).not.toContain(MARK);
    expect(byModel('ungranted')[0]).toContain(ANSWER);
    expect(requests.find((r) => r.model === 'ungranted')?.tools).toBeUndefined();
    // The conductor checking the workflow reads answers, never a tool's result.
    expect(replans).toHaveLength(1);
    expect(JSON.stringify(replans[0])).not.toContain(MARK);
    // The tool call's ledger row is the step's.
    const rows = (await ledger.list()).filter((r) => r.tool !== undefined);
    expect(rows).toEqual([
      expect.objectContaining({
        runId: result.runId,
        stepIndex: 0,
        server: 'tracker',
        tool: 'search_issues',
      }),
    ]);
  });
});
