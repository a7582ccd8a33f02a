import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { findChromium as firstChromium } from './chromium-setup.mjs';

/** The Chromium the tests drive: $CHROMIUM_PATH, Debian's /usr/bin/chromium, or Playwright's own build. */
export function findChromium(): string | undefined {
  return firstChromium({
    env: process.env,
    existsSync,
    playwrightPath: () => {
      try {
        return chromium.executablePath();
      } catch {
        // Playwright has no browser of its own installed: fine, the others may exist.
        return undefined;
      }
    },
  });
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

/**
 * The usual flags with a 256 MB V8 heap per isolate, for the specs whose code answers allocate until the heap
 * limit kills their runner: a lower limit reaches the same crash sooner (a user's machine has its own limit).
 */
export const smallHeapChromiumArgs = [...webgpuChromiumArgs, '--js-flags=--max-old-space-size=256'];
