import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicTransport } from '../../../src/providers/anthropic-transport.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import type { ToolUse } from '../../../src/providers/tool-use.ts';
import type { ChatEvent, ChatTransport } from '../../../src/providers/transport.ts';
import { stepTools } from '../../../src/tools/step-tools.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import type { ToolCallScript } from '../../provider/dialects/tool-calls.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { toolEgress, trackerServer } from '../tools/tool-fixture.ts';

// The tool loop of each wire against the test provider speaking it as documented (its
// dialects/tool-calls.ts cites OpenAI's and Anthropic's pages), the calls made on the real MCP test server.

let provider: TestProvider;
let mcp: TestMcpServer;

const SEARCH = { name: 'tracker__search_issues', arguments: { query: 'login' } };
const DELETE = { name: 'tracker__delete_issue', arguments: { id: 1 } };

const scripts: Record<string, ToolCallScript> = {
  searcher: { rounds: [[SEARCH]] },
  // Asks for a tool its step was not granted (only search is).
  overreacher: { rounds: [[DELETE]] },
  twice: { rounds: [[SEARCH], [SEARCH], [SEARCH]] },
  looper: { rounds: [[SEARCH]], loop: true },
};

beforeAll(async () => {
  provider = await startProvider({
    models: Object.entries(scripts).map(([id, toolCalls]) => ({
      id,
      behaviour: { kind: 'echo' },
      toolCalls,
    })),
  });
  mcp = await startMcpServer();
});
afterAll(async () => {
  await provider.close();
  await mcp.close();
});

const wires: Record<string, { providerId: string; transport: () => ChatTransport; path: string }> = {
  openai: {
    providerId: 'custom',
    transport: () => createOpenAITransport({ fetch }),
    path: '/v1/chat/completions',
  },
  anthropic: {
    providerId: 'anthropic',
    transport: () => createAnthropicTransport({ fetch }),
    path: '/v1/messages',
  },
};

async function grantSearch(maxRounds = 4): Promise<ToolUse> {
  const { egress } = await toolEgress();
  const tools = stepTools({
    egress,
    servers: [trackerServer(mcp)],
    grant: ['tracker.search_issues'],
    runId: 'run-1',
    stepIndex: 0,
    maxRounds,
    pageOrigin: 'http://localhost',
    confirm: async () => true,
  });
  if (!tools) throw new Error('no tools');
  return tools;
}

async function run(wire: string, model: string, tools: ToolUse) {
  provider.clearRequests();
  mcp.calls.length = 0;
  const { providerId, transport } = wires[wire]!;
  const worker = workerSpec({ id: 'w1', providerId, baseURL: provider.baseURL, model });
  const events: ChatEvent[] = [];
  for await (const event of transport().stream(worker, {
    messages: [{ role: 'user', content: 'Which issues mention login?' }],
    signal: new AbortController().signal,
    runId: 'run-1',
    stepIndex: 0,
    tools,
  }))
    events.push(event);
  const bodies = provider.requests
    .filter((r) => r.method === 'POST' && r.path === wires[wire]!.path)
    .map((r) => r.body as Record<string, unknown>);
  return { events, bodies, text: events.flatMap((e) => (e.type === 'delta' ? [e.text] : [])).join('') };
}

describe.each(Object.keys(wires))('the tool loop on the %s wire', (wire) => {
  it('model → tool call → the page calls the server → the result back to the model → its answer', async () => {
    const { events, bodies, text } = await run(wire, 'searcher', await grantSearch());
    expect(mcp.calls).toEqual([expect.objectContaining({ tool: 'search_issues', args: { query: 'login' } })]);
    expect(bodies).toHaveLength(2);
    const offered = bodies[0]?.tools as { name?: string; function?: { name: string } }[];
    expect(offered.map((t) => t.function?.name ?? t.name)).toEqual(['tracker__search_issues']);
    expect(text).toContain('#1 Login page times out');
    expect(text).toContain('<tool-output>');
    expect(events).toContainEqual({ type: 'tool-call', name: 'tracker__search_issues' });
    expect(events).toContainEqual({ type: 'tool-used', tool: 'tracker.search_issues', outcome: 'called' });
    // Each round is billed: the step's usage is the two requests' sum.
    const usage = events.filter((e) => e.type === 'usage').at(-1);
    expect(usage).toMatchObject({ promptTokens: 20 });
  });

  it('refuses a call outside the grant even when the model asks: nothing reaches the server, the model is told', async () => {
    const { text, bodies, events } = await run(wire, 'overreacher', await grantSearch());
    expect(mcp.calls).toEqual([]);
    expect(text).toContain('Refused: "tracker__delete_issue" is not a tool this step was granted');
    expect(events).toContainEqual({ type: 'tool-used', tool: 'tracker__delete_issue', outcome: 'refused' });
    expect(bodies).toHaveLength(2);
  });

  it('stops offering calls after the step’s rounds, and the model answers', async () => {
    const { bodies, text } = await run(wire, 'twice', await grantSearch(2));
    expect(mcp.calls).toHaveLength(2);
    expect(bodies).toHaveLength(3);
    const choice = bodies[2]?.tool_choice;
    expect(choice === 'none' || (choice as { type?: string })?.type === 'none').toBe(true);
    expect(bodies[0]?.tool_choice).toBeUndefined();
    expect(text).toContain('Tool results:');
  });

  it('stops a model that loops on tool calls', async () => {
    await expect(run(wire, 'looper', await grantSearch(1))).rejects.toThrow(
      /kept asking for tools after its 1 rounds/,
    );
    expect(mcp.calls).toHaveLength(1);
  });
});
