import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpProviderId } from '../../../src/providers/mcp-preset.ts';
import { connectMcp } from '../../../src/tools/connection.ts';
import { tokenBinding } from '../../../src/tools/tokens.ts';
import { startMcpServer, type TestMcpServer } from '../../mcp/server.ts';
import { toolEgress, trackerServer } from './tool-fixture.ts';

const TOKEN = 'mcp-token-0123456789abcdef';
let open: TestMcpServer;
let guarded: TestMcpServer;

beforeAll(async () => {
  open = await startMcpServer({ answer: 'sse' });
  guarded = await startMcpServer({ token: TOKEN });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
});

describe('an MCP server through egress', () => {
  it('lists its tools with their descriptions, schemas and annotations, a ledger row per request', async () => {
    const { egress, ledger } = await toolEgress();
    const connection = await connectMcp(egress, trackerServer(open));
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_issues', 'delete_issue']);
    expect(tools[0]?.description).toContain('Search the tracker');
    expect(tools[0]?.annotations).toEqual({ readOnlyHint: true });
    expect(tools[1]?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
    const rows = await ledger.list();
    // initialize, notifications/initialized, tools/list: each a POST through egress; the GET stream the
    // SDK would open is answered on the page (405), so it is no row and no request.
    expect(rows.map((r) => [r.purpose, r.method, r.server, r.tool])).toEqual([
      ['tool', 'POST', 'tracker', undefined],
      ['tool', 'POST', 'tracker', undefined],
      ['tool', 'POST', 'tracker', undefined],
    ]);
    expect(open.requests.filter((r) => r.method === 'GET')).toEqual([]);
    await connection.close();
  });

  it('sends the saved token to its own server only, and names the tool of a call in the ledger', async () => {
    const { egress, ledger, vault } = await toolEgress();
    await vault.saveKey({ providerId: mcpProviderId(guarded.url), origin: guarded.url, key: TOKEN });
    const connection = await connectMcp(egress, trackerServer(guarded), { runId: 'r1', stepIndex: 2 });
    const result = await connection.callTool('search_issues', { query: 'login' });
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: '#1 Login page times out\n#3 Login button misaligned',
    });
    expect(guarded.calls).toEqual([
      expect.objectContaining({ tool: 'search_issues', args: { query: 'login' } }),
    ]);
    const call = (await ledger.list()).find((r) => r.tool !== undefined);
    expect(call).toMatchObject({
      purpose: 'tool',
      server: 'tracker',
      tool: 'search_issues',
      runId: 'r1',
      stepIndex: 2,
      keyAttached: true,
      state: 'done',
    });
    expect(call?.bytesOut).toBeGreaterThan(0);
    expect(call?.bytesIn).toBeGreaterThan(0);

    // The other server, at another origin, never sees the token.
    const other = await connectMcp(egress, trackerServer(open));
    await other.listTools();
    expect(open.requests.some((r) => r.headers.authorization !== undefined)).toBe(false);
    await connection.close();
    await other.close();
  });

  it('takes another server’s token out of an answer, a server on the same origin too', async () => {
    const A_TOKEN = 'mcp-a-token-ABCDEFGHIJKLMN';
    const B_TOKEN = 'mcp-b-token-OPQRSTUVWXYZAB';
    const shared = await startMcpServer({
      tokens: { '/a/mcp': A_TOKEN, '/b/mcp': B_TOKEN },
      searchResult: () => `leaked: ${A_TOKEN}`,
    });
    try {
      const { egress, vault } = await toolEgress();
      const a = new URL('/a/mcp', shared.url).href;
      const b = new URL('/b/mcp', shared.url).href;
      await vault.saveKey({ ...tokenBinding(a), key: A_TOKEN });
      await vault.saveKey({ ...tokenBinding(b), key: B_TOKEN });
      const connection = await connectMcp(egress, { ...trackerServer(shared), id: 'b', url: b });
      const result = await connection.callTool('search_issues', { query: 'login' });
      expect(shared.calls).toHaveLength(1);
      expect(JSON.stringify(result)).toContain('leaked: ');
      expect(JSON.stringify(result)).not.toContain(A_TOKEN);
      await connection.close();
    } finally {
      await shared.close();
    }
  });

  it('without its token a guarded server refuses, and the failure says so', async () => {
    const { egress } = await toolEgress();
    await expect(connectMcp(egress, trackerServer(guarded))).rejects.toThrow(/401/);
  });
});
