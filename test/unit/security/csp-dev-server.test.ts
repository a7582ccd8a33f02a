import { resolve } from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { devDirectives, websocketOrigin } from '../../../build/csp-plugin.ts';
import { cspDirectives, serializeCsp } from '../../../src/security/csp.ts';

// `npm start` is Vite's dev server with vite.config.ts: it sends the build's policy, plus only what the
// dev server needs, so a host the build refuses is refused in development too.

const ROOT = resolve(import.meta.dirname, '../../..');
let server: ViteDevServer | undefined;
const saved = process.env.BATON_CONNECT_SRC;

afterEach(async () => {
  await server?.close();
  server = undefined;
  if (saved === undefined) delete process.env.BATON_CONNECT_SRC;
  else process.env.BATON_CONNECT_SRC = saved;
});

/** The dev server of vite.config.ts on a free port of 127.0.0.1, and its address. */
async function devServer(): Promise<string> {
  server = await createServer({
    root: ROOT,
    configFile: resolve(ROOT, 'vite.config.ts'),
    logLevel: 'silent',
    // Nothing is served to a browser here: no dependency scan.
    optimizeDeps: { noDiscovery: true, include: [] },
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, watch: null },
  });
  await server.listen();
  return server.resolvedUrls!.local[0]!.replace(/\/$/, '');
}

/** A policy's directives, by name, each a set of sources. */
function directivesOf(header: string): Map<string, Set<string>> {
  return new Map(
    header.split(';').map((d) => {
      const [name = '', ...sources] = d.trim().split(/\s+/);
      return [name, new Set(sources)] as const;
    }),
  );
}

describe('the dev server (npm start)', () => {
  it("sends the build's policy with only 'unsafe-inline' styles and its own websocket added", async () => {
    const base = await devServer();
    const response = await fetch(`${base}/`);
    expect(response.ok).toBe(true);
    const header = response.headers.get('content-security-policy') ?? '';
    const websocket = `ws://${new URL(base).host}`;
    expect(header).toBe(serializeCsp(devDirectives(cspDirectives({ frameSrc: [] }), websocket), 'header'));
    // Against the build's header, directive by directive: the same but for those two sources.
    const dev = directivesOf(header);
    const build = directivesOf(serializeCsp(cspDirectives({ frameSrc: [] }), 'header'));
    expect([...dev.keys()]).toEqual([...build.keys()]);
    for (const [name, sources] of build) {
      const added = [...dev.get(name)!].filter((s) => !sources.has(s));
      const removed = [...sources].filter((s) => !dev.get(name)!.has(s));
      expect(removed, name).toEqual([]);
      expect(added, name).toEqual(
        name === 'style-src' ? ["'unsafe-inline'"] : name === 'connect-src' ? [websocket] : [],
      );
    }
    expect(dev.get('script-src')).toEqual(new Set(["'self'", "'wasm-unsafe-eval'"]));
    // Scripts and the sandbox: the same header on the app's modules, none on the sandbox's own page.
    const module = await fetch(`${base}/src/main.ts`);
    expect(module.headers.get('content-security-policy')).toBe(header);
    const sandbox = await fetch(`${base}/sandbox/code-runner.html`);
    expect(sandbox.ok).toBe(true);
    expect(sandbox.headers.get('content-security-policy')).toBeNull();
  });

  it('allows a custom host only when BATON_CONNECT_SRC names it, as the build does', async () => {
    delete process.env.BATON_CONNECT_SRC;
    let header = (await fetch(`${await devServer()}/`)).headers.get('content-security-policy') ?? '';
    expect(directivesOf(header).get('connect-src')).not.toContain('https://llm.example.com');
    await server?.close();
    process.env.BATON_CONNECT_SRC = 'https://llm.example.com';
    header = (await fetch(`${await devServer()}/`)).headers.get('content-security-policy') ?? '';
    expect(directivesOf(header).get('connect-src')).toContain('https://llm.example.com');
  });

  it('takes only a plain host into the policy, never text that would add a directive', () => {
    expect(websocketOrigin('localhost:5173', false)).toBe('ws://localhost:5173');
    expect(websocketOrigin('[::1]:5173', true)).toBe('wss://[::1]:5173');
    for (const host of [undefined, '', "evil.test; script-src 'unsafe-inline'", 'a b', 'x/y']) {
      expect(websocketOrigin(host, false), String(host)).toBeUndefined();
    }
    expect(devDirectives(cspDirectives(), undefined)['connect-src']).toEqual(cspDirectives()['connect-src']);
  });
});
