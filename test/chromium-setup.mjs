// Which Chromium `npm test` drives, and getting one when the machine has none. Plain JavaScript: `npm test`
// runs `node test/run-all.mjs` before anything is compiled. Everything it touches is passed in, so the
// decision is unit-tested (test/unit/tooling/chromium-setup.test.ts) without deleting a real browser.

/** The paths tried, in order: $CHROMIUM_PATH, Debian's chromium, then Playwright's own build. */
export const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const APT_HINT =
  'install one (Debian: `sudo apt-get install -y chromium`) or set CHROMIUM_PATH=/path/to/chrome';

/**
 * @typedef {object} ChromiumDeps
 * @property {Record<string, string | undefined>} env
 * @property {(path: string) => boolean} existsSync
 * @property {() => string | undefined} playwrightPath Where Playwright's own Chromium is (or would be) installed.
 * @property {(command: string, args: string[]) => { status: number | null, error?: Error }} run
 *   Runs a command with its output shown to the user (spawnSync with stdio 'inherit').
 * @property {(line: string) => void} log
 */

/**
 * The first Chromium that exists, or undefined.
 * @param {Pick<ChromiumDeps, 'env' | 'existsSync' | 'playwrightPath'>} deps
 * @returns {string | undefined}
 */
export function findChromium(deps) {
  const candidates = [deps.env.CHROMIUM_PATH, ...SYSTEM_CHROMIUM, deps.playwrightPath()];
  return candidates.find((path) => !!path && deps.existsSync(path));
}

/**
 * The Chromium to test with. When there is none, gets Playwright's (`npx playwright install chromium`,
 * which needs the internet); when that fails too, says how to install one.
 * @param {ChromiumDeps} deps
 * @returns {{ ok: true, path: string, installed: boolean } | { ok: false, message: string }}
 */
export function ensureChromium(deps) {
  const found = findChromium(deps);
  if (found) return { ok: true, path: found, installed: false };
  if (deps.env.CHROMIUM_PATH) deps.log(`CHROMIUM_PATH=${deps.env.CHROMIUM_PATH} does not exist.`);
  deps.log('No Chromium found: getting Playwright’s own with `npx playwright install chromium`…');
  const result = deps.run('npx', ['playwright', 'install', 'chromium']);
  const path = deps.playwrightPath();
  if (result.status === 0 && path && deps.existsSync(path)) return { ok: true, path, installed: true };
  const command = '`npx playwright install chromium`';
  const why = result.error
    ? `${command} could not run (${result.error.message})`
    : result.status === 0
      ? `${command} finished but left no browser at ${path ?? 'Playwright’s path'}`
      : `${command} failed (exit code ${result.status ?? 'none'}; is this machine offline?)`;
  return { ok: false, message: `No Chromium found, and ${why}. To run the browser tests, ${APT_HINT}.` };
}
