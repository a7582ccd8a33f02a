/**
 * An MCP server (src/tools/) as egress sees it: a host the user chose, any origin, its bearer token (if
 * any) saved in the vault for the server's origin under a provider id of this one and the server's path
 * (`mcpProviderId`), so egress attaches it only to requests for that server and takes it out of what
 * goes to other origins. Not in the catalog: it is no model provider, and the pool's form must not offer it
 * (its preset is egress's, src/egress/egress-presets.ts).
 */
export const MCP_PROVIDER_ID = 'mcp';

/**
 * The provider id a server's requests and its token go under: `mcp:` and the path of its URL. The vault
 * binds a key to a provider and an origin; a token is for one server, and two servers may share an origin
 * (`https://host/a/mcp`, `https://host/b/mcp`), so the path goes in the provider id and the token is bound
 * to the server's URL (its origin and path; a query is not part of it).
 */
export function mcpProviderId(serverUrl: string): string {
  return `${MCP_PROVIDER_ID}:${new URL(serverUrl).pathname}`;
}

/** Whether a provider id is an MCP server's (`mcpProviderId`). */
export function isMcpProvider(providerId: string): boolean {
  return providerId.startsWith(`${MCP_PROVIDER_ID}:`) || providerId === MCP_PROVIDER_ID;
}
