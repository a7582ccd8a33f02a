import { defineConfig } from '@playwright/test';
import { findChromium, webgpuChromiumArgs } from './test/chromium.ts';

export const previewPort = 4173;

export default defineConfig({
  testDir: 'test/browser',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  outputDir: 'test-results/artifacts',
  use: {
    baseURL: `http://127.0.0.1:${previewPort}`,
    launchOptions: { executablePath: findChromium(), args: webgpuChromiumArgs },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: `npx vite build --mode test --logLevel warn && npx vite preview --mode test --outDir dist-test --host 127.0.0.1 --port ${previewPort} --strictPort`,
    url: `http://127.0.0.1:${previewPort}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
  },
});
