import { describe, expect, it } from 'vitest';
import { keyName } from '../../../src/app/keys.ts';
import { mcpProviderId } from '../../../src/providers/mcp-preset.ts';

describe('keyName', () => {
  it("names a provider's key by its provider, and a tool server's token by the server", () => {
    expect(keyName({ providerId: 'openai' })).toBe('OpenAI');
    expect(keyName({ providerId: mcpProviderId('https://tools.example/a/mcp'), label: 'tracker' })).toBe(
      'Tool server "tracker"',
    );
    expect(keyName({ providerId: mcpProviderId('https://tools.example/a/mcp') })).toBe(
      'Tool server at /a/mcp',
    );
    expect(keyName({ providerId: 'mcp' })).toBe('Tool server at /');
    expect(keyName({ providerId: 'no-such-provider' })).toBe('no-such-provider');
  });
});
