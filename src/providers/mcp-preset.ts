/**
 * An MCP server (src/tools/) as egress sees it: a host the user chose, any origin, its bearer token (if
 * any) saved in the vault under this provider id for the server's origin, so egress attaches it only to
 * requests for that origin and takes it out of everything else. Not in the catalog: it is no model
 * provider, and the pool's form must not offer it (its preset is egress's, src/egress/egress-presets.ts).
 */
export const MCP_PROVIDER_ID = 'mcp';
