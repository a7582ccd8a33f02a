/**
 * Where an MCP server's bearer token is kept in the vault: a key for the server's origin under the provider
 * id `mcp:<its path>` (mcp-preset.ts), so the token is bound to the server's URL.
 */
import { MCP_PROVIDER_ID, mcpProviderId } from '../providers/mcp-preset.ts';
import type { KeyInfo, Vault } from '../vault/vault.ts';
import type { ToolServer } from './servers.ts';

/** The vault binding of a server's token. */
export function tokenBinding(url: string): { providerId: string; origin: string } {
  return { providerId: mcpProviderId(url), origin: new URL(url).origin };
}

/** Whether a saved key is the token of the server at `url`. */
export function isTokenOf(url: string): (key: Pick<KeyInfo, 'providerId' | 'origin'>) => boolean {
  const token = tokenBinding(url);
  return (key) => key.providerId === token.providerId && key.origin === token.origin;
}

/** Whether a token for the server at `url` is among the saved keys. */
export function hasTokenFor(
  url: string,
): (keys: readonly Pick<KeyInfo, 'providerId' | 'origin'>[]) => boolean {
  const isToken = isTokenOf(url);
  return (keys) => keys.some(isToken);
}

/**
 * Tokens saved before a token was bound to its server's URL: they were keys of provider `mcp` for the
 * server's origin, which every server at that origin was sent. Each is saved again for each server at its
 * origin (what those servers were sent until now), then the old key goes. The plaintext is needed, so this
 * waits for an unlocked vault: while locked, nothing changes and it is tried again on the next read.
 */
export async function adoptOriginTokens(
  vault: Pick<Vault, 'listKeys' | 'keyFor' | 'saveKey' | 'deleteKey' | 'state'>,
  servers: readonly Pick<ToolServer, 'id' | 'url'>[],
): Promise<void> {
  if (vault.state() === 'locked') return;
  const old = (await vault.listKeys()).filter((k) => k.providerId === MCP_PROVIDER_ID);
  for (const key of old) {
    const token = await vault.keyFor(MCP_PROVIDER_ID, key.origin);
    if (token === undefined) continue;
    for (const server of servers) {
      if (new URL(server.url).origin !== key.origin) continue;
      await vault.saveKey({
        ...tokenBinding(server.url),
        key: token,
        label: server.id,
      });
    }
    await vault.deleteKey(key.id);
  }
}
