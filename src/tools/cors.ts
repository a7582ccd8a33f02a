/**
 * What an MCP server must allow for this page to call it, and the words for a call it blocked. The
 * Streamable HTTP transport sends `content-type`, `authorization` (a saved token), `mcp-session-id`,
 * `mcp-protocol-version` and `last-event-id`, and must read `mcp-session-id` from the answer: a server that
 * does not allow them (CORS) is hidden from the page by the browser, as a provider without CORS is.
 */
import { UnreachableError } from '../egress/unreachable.ts';
import { ProviderError } from '../providers/errors.ts';

export const MCP_ALLOWED_HEADERS = [
  'content-type',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
] as const;
export const MCP_EXPOSED_HEADERS = ['mcp-session-id'] as const;

/** The server's own fix, for this page's origin: the headers its answers (and preflights) must carry. */
export function mcpCorsFix(pageOrigin: string): string {
  return (
    `The server must answer this page's requests (and their preflight OPTIONS) with ` +
    `Access-Control-Allow-Origin: ${pageOrigin}, Access-Control-Allow-Methods: POST, OPTIONS, ` +
    `Access-Control-Allow-Headers: ${MCP_ALLOWED_HEADERS.join(', ')}, and ` +
    `Access-Control-Expose-Headers: ${MCP_EXPOSED_HEADERS.join(', ')}.`
  );
}

/**
 * Why a request to an MCP server failed, in words for the user (Settings) and for the model (a tool call):
 * a CORS block names the fix; a refusal, an HTTP error or a protocol error says itself.
 */
export function toolServerError(error: unknown, serverId: string, pageOrigin: string): string {
  if (error instanceof UnreachableError) {
    const fix = error.corsMayHelp ? ` ${mcpCorsFix(pageOrigin)}` : '';
    return `MCP server "${serverId}": ${error.message}${fix}`;
  }
  if (error instanceof ProviderError) return `MCP server "${serverId}": ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  return `MCP server "${serverId}": ${message.slice(0, 400)}`;
}
