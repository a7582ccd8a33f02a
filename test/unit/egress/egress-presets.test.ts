import { describe, expect, it } from 'vitest';
import { BACKUP_S3, BACKUP_WEBDAV } from '../../../src/egress/backup-endpoints.ts';
import { egressPreset } from '../../../src/egress/egress-presets.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { MCP_PROVIDER_ID } from '../../../src/providers/mcp-preset.ts';

describe('egressPreset', () => {
  it("knows the catalog's providers by the catalog's own presets", () => {
    expect(egressPreset('openai')).toBe(presetById('openai'));
  });

  it('knows an MCP server and the backup targets, each with its own auth, none of them in the catalog', () => {
    const auths = [MCP_PROVIDER_ID, BACKUP_S3, BACKUP_WEBDAV].map((id) => {
      expect(presetById(id)).toBeUndefined();
      const preset = egressPreset(id);
      expect(preset).toMatchObject({ id, baseURLEditable: true, needsKey: false, stripSdkHeaders: false });
      return preset?.auth;
    });
    expect(auths).toEqual(['bearer', 'sigv4', 'basic']);
  });

  it('knows no other provider', () => {
    expect(egressPreset('no-such-provider')).toBeUndefined();
  });
});
