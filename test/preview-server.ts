import { createHash } from 'node:crypto';

/**
 * The port this checkout's test build is served on. Two checkouts tested at once on one machine must not
 * share a server: with one fixed port, the second reused the first's and tested the first's build (and
 * read a build folder of its own that was never made). So the port is taken from the checkout's path
 * (4200–5199), unless PREVIEW_PORT says otherwise.
 */
export function previewPort(env: NodeJS.ProcessEnv, checkout: string): number {
  if (env.PREVIEW_PORT) return Number(env.PREVIEW_PORT);
  const hash = createHash('sha256').update(checkout).digest();
  return 4200 + (hash.readUInt32BE(0) % 1000);
}

/**
 * Whether Playwright may test a server it did not start on that port: only when asked (BATON_REUSE_SERVER=1,
 * for a developer who keeps `vite preview` running), never by default, so a stranger's server on the
 * port is an error rather than the thing tested.
 */
export function reuseServer(env: NodeJS.ProcessEnv): boolean {
  return env.BATON_REUSE_SERVER === '1';
}
