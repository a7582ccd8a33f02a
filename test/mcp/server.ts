/**
 * A real MCP server for tests, made with the official SDK (McpServer over its Node Streamable HTTP server
 * transport) on 127.0.0.1: an issue tracker with a read-only tool (`search_issues`) and a destructive one
 * (`delete_issue`), and a log of every tool call it ran, so a test can hold the page's ledger against it one
 * for one. Stateless (a server and transport per request, as the SDK's stateless example does), answering
 * in JSON or as an event stream.
 *
 * CORS as a browser needs it for the Streamable HTTP transport (README "Tools"): `open` allows this page's
 * origin and the transport's headers; `off` sends none, so a browser hides every answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpCall {
  tool: string;
  args: Record<string, unknown>;
  /** Milliseconds the tool's own work took on the server (from the request's arrival to its answer). */
  serverMs: number;
}

export interface McpHttpRequest {
  method: string;
  /** The request's path: one server may answer at several (two MCP servers on one origin). */
  path: string;
  headers: Record<string, string>;
}

export interface TestMcpServerOptions {
  port?: number;
  cors?: 'open' | 'off';
  /** Then every request must carry `Authorization: Bearer <token>`, else 401. */
  token?: string;
  /** A token by path instead (`/a/mcp`): a path not named takes `token`. Two servers on one origin. */
  tokens?: Record<string, string>;
  /** Answer as JSON (default) or as an event stream (`sse`). */
  answer?: 'json' | 'sse';
  /** What `search_issues` returns (default: the issues whose title holds the query). */
  searchResult?: (query: string) => string;
}

export interface TestMcpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** Every tool call run, in order. Live. */
  calls: McpCall[];
  /** Every HTTP request, preflights included. Live. */
  requests: McpHttpRequest[];
  close(): Promise<void>;
}

export const ISSUES = [
  { id: 1, title: 'Login page times out' },
  { id: 2, title: 'Export drops the last row' },
  { id: 3, title: 'Login button misaligned' },
];

export const MCP_HEADERS = 'content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id';

function mcpServer(calls: McpCall[], options: TestMcpServerOptions, arrived: number): McpServer {
  const server = new McpServer({ name: 'tracker', version: '1.0.0' });
  const logged = (tool: string, args: Record<string, unknown>) =>
    calls.push({ tool, args, serverMs: performance.now() - arrived });
  server.registerTool(
    'search_issues',
    {
      description: 'Search the tracker for issues whose title contains the query.',
      inputSchema: { query: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ query }) => {
      const text =
        options.searchResult?.(query) ??
        (ISSUES.filter((i) => i.title.toLowerCase().includes(query.toLowerCase()))
          .map((i) => `#${i.id} ${i.title}`)
          .join('\n') ||
          'No issues found.');
      logged('search_issues', { query });
      return { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'delete_issue',
    {
      description: 'Delete an issue for good.',
      inputSchema: { id: z.number().int() },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ id }) => {
      logged('delete_issue', { id });
      return { content: [{ type: 'text', text: `Deleted issue #${id}.` }] };
    },
  );
  return server;
}

export async function startMcpServer(options: TestMcpServerOptions = {}): Promise<TestMcpServer> {
  const calls: McpCall[] = [];
  const requests: McpHttpRequest[] = [];
  const cors = options.cors ?? 'open';
  const corsHeaders = (req: IncomingMessage): Record<string, string> =>
    cors === 'off' || !req.headers.origin
      ? {}
      : {
          'access-control-allow-origin': req.headers.origin,
          'access-control-expose-headers': 'mcp-session-id',
          vary: 'Origin',
        };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const arrived = performance.now();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = String(value);
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ method: req.method ?? '', path, headers });
    for (const [name, value] of Object.entries(corsHeaders(req))) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      if (cors === 'off') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': MCP_HEADERS,
        'access-control-max-age': '0',
      });
      res.end();
      return;
    }
    const token = options.tokens?.[path] ?? options.token;
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    const server = mcpServer(calls, options, arrived);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: (options.answer ?? 'json') === 'json',
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
