import { describe, expect, it } from 'vitest';
import config from '../../../playwright.config.ts';
import { previewPort, reuseServer } from '../../preview-server.ts';
import { testServerCommand } from '../../test-build.mjs';

describe('the test build server', () => {
  it('gives two checkouts two ports, and one checkout the same port each time', () => {
    const a = previewPort({}, '/work/a/baton');
    const b = previewPort({}, '/work/b/baton');
    expect(a).not.toBe(b);
    expect(previewPort({}, '/work/a/baton')).toBe(a);
    expect(a).toBeGreaterThanOrEqual(4200);
    expect(a).toBeLessThan(5200);
    expect(previewPort({ PREVIEW_PORT: '4999' }, '/work/a/baton')).toBe(4999);
  });

  it('never tests a server it did not start unless asked', () => {
    expect(reuseServer({})).toBe(false);
    expect(reuseServer({ CI: '' })).toBe(false);
    expect(reuseServer({ BATON_REUSE_SERVER: '1' })).toBe(true);
    const server = Array.isArray(config.webServer) ? config.webServer[0] : config.webServer;
    expect(server?.reuseExistingServer).toBe(false);
    expect(config.use?.baseURL).not.toContain(':4173');
  });

  it('builds the app before serving it, unless the suite built it already', () => {
    expect(testServerCommand({}, 'dist-x', 4321)).toBe(
      'npx vite build --mode test --logLevel warn --outDir dist-x && npx vite preview --mode test --outDir dist-x --host 127.0.0.1 --port 4321 --strictPort',
    );
    expect(testServerCommand({ BATON_PREBUILT: '1' }, 'dist-x', 4321)).toBe(
      'npx vite preview --mode test --outDir dist-x --host 127.0.0.1 --port 4321 --strictPort',
    );
  });
});
