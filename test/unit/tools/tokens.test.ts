import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { MCP_PROVIDER_ID, mcpProviderId } from '../../../src/providers/mcp-preset.ts';
import { adoptOriginTokens } from '../../../src/tools/tokens.ts';
import { openVault } from '../../../src/vault/vault.ts';

const TOKEN = 'mcp-origin-token-0123456789';
const A = 'https://tools.example/a/mcp';
const B = 'https://tools.example/b/mcp';
const OTHER = 'https://elsewhere.example/mcp';

describe('a token saved for a server’s origin (before tokens were bound to a URL)', () => {
  it('is saved again for each server at that origin, and the origin-wide key goes; locked, nothing changes', async () => {
    const vault = await openVault('origin-tokens-vault');
    await vault.saveKey({ providerId: MCP_PROVIDER_ID, origin: A, key: TOKEN, label: 'a' });
    const servers = [
      { id: 'a', url: A },
      { id: 'b', url: B },
      { id: 'other', url: OTHER },
    ];
    await vault.setPassphrase('correct horse battery staple');
    vault.lock();
    await adoptOriginTokens(vault, servers);
    expect((await vault.listKeys()).map((k) => k.providerId)).toEqual([MCP_PROVIDER_ID]);

    await vault.unlock('correct horse battery staple');
    await adoptOriginTokens(vault, servers);
    expect((await vault.listKeys()).map((k) => [k.providerId, k.origin, k.label])).toEqual([
      [mcpProviderId(A), 'https://tools.example', 'a'],
      [mcpProviderId(B), 'https://tools.example', 'b'],
    ]);
    expect(await vault.keyFor(mcpProviderId(A), A)).toBe(TOKEN);
    expect(await vault.keyFor(mcpProviderId(B), B)).toBe(TOKEN);
    expect(await vault.keyFor(mcpProviderId(OTHER), OTHER)).toBeUndefined();
  });
});
