import { type ProviderPreset, presetById } from './catalog.ts';

/**
 * An MCP server (src/tools/) as egress sees it: a host the user chose, any origin, its bearer token (if
 * any) saved in the vault under this provider id for the server's origin, so egress attaches it only to
 * requests for that origin and takes it out of everything else. Not in the catalog: it is no model
 * provider, and the pool's form must not offer it.
 */
export const MCP_PROVIDER_ID = 'mcp';

export const MCP_PRESET: ProviderPreset = {
  id: MCP_PROVIDER_ID,
  name: 'MCP server',
  kind: 'custom',
  baseURL: '',
  baseURLEditable: true,
  auth: 'bearer',
  needsKey: false,
  headers: {},
  // The Streamable HTTP transport's own headers (mcp-session-id, mcp-protocol-version, last-event-id) are
  // the protocol: they must go. Nothing of the SDK's fingerprints the machine.
  stripSdkHeaders: false,
  hasModelsEndpoint: false,
  models: [],
};

/** The catalog's preset, or the MCP server's: what egress knows of a request's provider. */
export function presetOrMcp(providerId: string): ProviderPreset | undefined {
  return presetById(providerId) ?? (providerId === MCP_PROVIDER_ID ? MCP_PRESET : undefined);
}
