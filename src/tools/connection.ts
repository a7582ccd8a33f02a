/**
 * One connection to an MCP server over Streamable HTTP, with the official SDK's client, every request of it
 * through egress: the server's bearer token (a vault key for its URL, mcp-preset.ts) is attached there and
 * nowhere else, the ledger gets a row per request (purpose `tool`, the server, and the tool of a `tools/call`, for
 * the run and step that called it), and other hosts' keys are scrubbed out of what goes and what comes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Egress } from '../egress/egress.ts';
import { mcpProviderId } from '../providers/mcp-preset.ts';
import { zodSchemaValidator } from './schema-check.ts';
import type { ListedTool, ToolAnnotations, ToolServer } from './servers.ts';

/** The version this client names itself with in `initialize`. */
const CLIENT_INFO = { name: 'baton', version: '1' };

/** Who a connection's requests are for in the ledger: a run's step, or none (Settings listing tools). */
export interface CallerContext {
  runId?: string;
  stepIndex?: number;
}

/** What a tool call gave back, as the MCP `CallToolResult` has it (content blocks, structured content). */
export interface ToolResult {
  content: readonly Record<string, unknown>[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpConnection {
  listTools(signal?: AbortSignal): Promise<ListedTool[]>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  close(): Promise<void>;
}

/** The tool a JSON-RPC body calls (`tools/call`), if it is one. */
function calledTool(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes('tools/call')) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
    return message.method === 'tools/call' && typeof message.params?.name === 'string'
      ? message.params.name
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fetch the SDK's transport is given. POSTs (every message) go through egress. The GET the transport
 * opens for server-initiated messages is answered here with 405, which the spec lets a server answer and
 * the SDK reads as "no such stream": Baton asks and is answered, it takes no requests from a server, and a
 * stream held open for the page's life would keep a request on its way out forever. A DELETE (ending a
 * session) is not sent either: sessions end on the server's own clock.
 */
export function mcpFetch(
  egress: Pick<Egress, 'fetchFor'>,
  server: ToolServer,
  context: CallerContext,
): typeof fetch {
  return (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'POST') return Promise.resolve(new Response(null, { status: 405 }));
    const tool = calledTool(init?.body);
    return egress.fetchFor({
      // Its token is bound to the server's URL, not only its origin: another server there gets none of it.
      providerId: mcpProviderId(server.url),
      baseURL: server.url,
      purpose: 'tool',
      server: server.id,
      ...(tool !== undefined ? { tool } : {}),
      ...(context.runId !== undefined ? { runId: context.runId } : {}),
      ...(context.stepIndex !== undefined ? { stepIndex: context.stepIndex } : {}),
    })(input, init);
  };
}

function annotationsOf(value: unknown): ToolAnnotations | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const a = value as Record<string, unknown>;
  const out: ToolAnnotations = {};
  if (typeof a.title === 'string') out.title = a.title;
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (typeof a[hint] === 'boolean') out[hint] = a[hint];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Connects (the `initialize` handshake) and returns the connection. Throws what the SDK or egress threw. */
export async function connectMcp(
  egress: Pick<Egress, 'fetchFor'>,
  server: ToolServer,
  context: CallerContext = {},
  signal?: AbortSignal,
): Promise<McpConnection> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: zodSchemaValidator });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    fetch: mcpFetch(egress, server, context),
    // Egress refuses to follow any redirect: the SDK is told not to either.
    requestInit: { redirect: 'manual' },
  });
  await client.connect(transport, signal ? { signal } : {});
  return {
    async listTools(listSignal) {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      // Pages until the server says there are no more (bounded, should one loop).
      for (let page = 0; page < 20; page++) {
        const result = await client.listTools(
          cursor ? { cursor } : undefined,
          listSignal ? { signal: listSignal } : {},
        );
        for (const tool of result.tools) {
          const annotations = annotationsOf(tool.annotations);
          tools.push({
            name: tool.name,
            description: tool.description ?? '',
            inputSchema: tool.inputSchema as Record<string, unknown>,
            ...(annotations ? { annotations } : {}),
          });
        }
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return tools;
    },
    async callTool(name, args, callSignal) {
      const result = await client.callTool(
        { name, arguments: args },
        undefined,
        callSignal ? { signal: callSignal } : {},
      );
      return {
        content: Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [],
        ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
        ...(result.isError === true ? { isError: true } : {}),
      };
    },
    async close() {
      await client.close();
    },
  };
}
