import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

/** The Chromium the tests drive: $CHROMIUM_PATH, Debian's /usr/bin/chromium, or Playwright's own build. */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  try {
    candidates.push(chromium.executablePath());
  } catch {
    // Playwright has no browser of its own installed: fine, the others may exist.
  }
  return candidates.find((path): path is string => !!path && existsSync(path));
}

/** Flags every test browser gets: no background traffic on this closed network, real (SwiftShader) WebGPU. */
export const baseChromiumArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export const webgpuChromiumArgs = [...baseChromiumArgs, '--enable-unsafe-webgpu'];
