/**
 * What egress knows of a request's provider: the catalog's presets, and the providers of no catalog that
 * requests still go to, in one table. Those are no model providers (the pool's form must not offer them)
 * and their host is the user's own, at any origin: an MCP server (src/tools/) and the two backup targets
 * (src/backup/). Their requests are checked, keyed and recorded as a provider's are: sent only to the
 * chosen origin, with the credentials the vault holds under this provider id for that origin alone, and
 * one ledger row each.
 */
import { type ProviderPreset, presetById } from '../providers/catalog.ts';
import { isMcpProvider, MCP_PROVIDER_ID } from '../providers/mcp-preset.ts';
import { BACKUP_S3, BACKUP_WEBDAV } from './backup-endpoints.ts';

function userHostPreset(id: string, name: string, auth: ProviderPreset['auth']): ProviderPreset {
  return {
    id,
    name,
    kind: 'custom',
    baseURL: '',
    baseURLEditable: true,
    auth,
    needsKey: false,
    headers: {},
    // The client's own headers are its protocol and go as they are (never its credentials, which egress
    // replaces): MCP's Streamable HTTP session headers (mcp-session-id, mcp-protocol-version,
    // last-event-id), WebDAV's Depth, S3's x-amz-*. Nothing of the MCP SDK's fingerprints the machine.
    stripSdkHeaders: false,
    hasModelsEndpoint: false,
    models: [],
  };
}

const EGRESS_ONLY: ReadonlyMap<string, ProviderPreset> = new Map(
  [
    // A bearer token, if the server asks for one.
    userHostPreset(MCP_PROVIDER_ID, 'MCP server', 'bearer'),
    // Signed here, where the secret is attached (signedForS3), so the secret never reaches src/backup/.
    userHostPreset(BACKUP_S3, 'Backup bucket (S3-compatible)', 'sigv4'),
    userHostPreset(BACKUP_WEBDAV, 'Backup server (WebDAV)', 'basic'),
  ].map((preset) => [preset.id, preset]),
);

/**
 * The catalog's preset for a provider id, or egress's own for an MCP server (any `mcp:<path>`: a token is
 * bound to its server's URL, src/providers/mcp-preset.ts) or a backup target.
 */
export function egressPreset(providerId: string): ProviderPreset | undefined {
  return presetById(providerId) ?? EGRESS_ONLY.get(isMcpProvider(providerId) ? MCP_PROVIDER_ID : providerId);
}
