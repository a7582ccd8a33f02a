import { describe, expect, it } from 'vitest';
import { type ChromiumDeps, ensureChromium } from '../../chromium-setup.mjs';

const PLAYWRIGHT = '/root/.cache/ms-playwright/chromium-1234/chrome-linux/chrome';

/** A machine with these files; `install` says what `npx playwright install chromium` does on it. */
function machine(options: {
  files?: string[];
  env?: Record<string, string>;
  install?: 'works' | 'offline' | 'no-npx' | 'no-browser';
}) {
  const files = new Set(options.files ?? []);
  const runs: string[] = [];
  const logs: string[] = [];
  const deps: ChromiumDeps = {
    env: options.env ?? {},
    existsSync: (path) => files.has(path),
    playwrightPath: () => PLAYWRIGHT,
    run: (command, args) => {
      runs.push([command, ...args].join(' '));
      switch (options.install ?? 'offline') {
        case 'works':
          files.add(PLAYWRIGHT);
          return { status: 0 };
        case 'no-browser':
          return { status: 0 };
        case 'no-npx':
          return { status: null, error: new Error('spawnSync npx ENOENT') };
        default:
          return { status: 1 };
      }
    },
    log: (line) => logs.push(line),
  };
  return { deps, runs, logs };
}

describe('ensureChromium', () => {
  it("uses Debian's chromium when it is there, and installs nothing", () => {
    const { deps, runs } = machine({ files: ['/usr/bin/chromium'] });
    expect(ensureChromium(deps)).toEqual({ ok: true, path: '/usr/bin/chromium', installed: false });
    expect(runs).toEqual([]);
  });

  it('prefers $CHROMIUM_PATH, then the system browser, then Playwright’s own', () => {
    const all = ['/opt/chrome', '/usr/bin/chromium', PLAYWRIGHT];
    expect(ensureChromium(machine({ files: all, env: { CHROMIUM_PATH: '/opt/chrome' } }).deps)).toMatchObject(
      {
        path: '/opt/chrome',
      },
    );
    expect(ensureChromium(machine({ files: all }).deps)).toMatchObject({ path: '/usr/bin/chromium' });
    expect(ensureChromium(machine({ files: [PLAYWRIGHT] }).deps)).toMatchObject({
      path: PLAYWRIGHT,
      installed: false,
    });
  });

  it('on a fresh machine with internet, gets Playwright’s Chromium itself', () => {
    const { deps, runs, logs } = machine({ install: 'works' });
    expect(ensureChromium(deps)).toEqual({ ok: true, path: PLAYWRIGHT, installed: true });
    expect(runs).toEqual(['npx playwright install chromium']);
    expect(logs.join('\n')).toContain('No Chromium found');
  });

  it('offline, after the install fails, says so and how to install one with apt', () => {
    const { deps, runs } = machine({ install: 'offline' });
    const result = ensureChromium(deps);
    expect(runs).toEqual(['npx playwright install chromium']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('`npx playwright install chromium` failed (exit code 1');
    expect(result.message).toContain('sudo apt-get install -y chromium');
    expect(result.message).toContain('CHROMIUM_PATH');
  });

  it('names the cause when npx cannot run or the install leaves no browser', () => {
    const noNpx = ensureChromium(machine({ install: 'no-npx' }).deps);
    expect(noNpx).toMatchObject({ ok: false, message: expect.stringContaining('spawnSync npx ENOENT') });
    const empty = ensureChromium(machine({ install: 'no-browser' }).deps);
    expect(empty).toMatchObject({
      ok: false,
      message: expect.stringContaining(`left no browser at ${PLAYWRIGHT}`),
    });
  });

  it('says when $CHROMIUM_PATH points nowhere before it looks further', () => {
    const { deps, logs } = machine({ env: { CHROMIUM_PATH: '/nope/chrome' }, install: 'works' });
    expect(ensureChromium(deps)).toMatchObject({ ok: true, path: PLAYWRIGHT });
    expect(logs[0]).toBe('CHROMIUM_PATH=/nope/chrome does not exist.');
  });
});
