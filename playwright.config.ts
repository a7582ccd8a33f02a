import { defineConfig } from '@playwright/test';
import { findChromium, webgpuChromiumArgs } from './test/chromium.ts';
import { previewPort as portFor, reuseServer } from './test/preview-server.ts';
import { testBuildDir, testServerCommand } from './test/test-build.mjs';

// Several checkouts or helpers can run browser tests at once: each has its own port and build folder.
const previewPort = portFor(process.env, import.meta.dirname);
const outDir = testBuildDir(process.env);
// Playwright empties its output folder at start: parallel runs each need their own.
const resultsDir = process.env.BATON_DIST ? `test-results/${process.env.BATON_DIST}` : 'test-results';

const baseURL = `http://127.0.0.1:${previewPort}`;

export default defineConfig({
  testDir: 'test/browser',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // Two, one a core: fresh-clone runs on three took as long (15.0-15.5 min against 15.4 on two), and a
  // third worker on two cores only adds contention to specs that wait on the page.
  workers: 2,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: `${resultsDir}/playwright.json` }]],
  outputDir: `${resultsDir}/artifacts`,
  use: {
    baseURL,
    launchOptions: { executablePath: findChromium(), args: webgpuChromiumArgs },
    // A trace's screencast and DOM snapshots made the suite about a quarter slower (the browser draws each
    // frame for it), though only failed tests keep theirs: a failure keeps its screenshot and the page's
    // ARIA snapshot (error-context.md) regardless, and BATON_TRACE=1 records full traces to dig further.
    trace: process.env.BATON_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
    // Each test is a first visit, on which the app's service worker precaches the app shell (136 files,
    // 1.6 MB): a user's browser does that once, the suite did it for every test, about an eighth of an
    // app spec's time. Specs about what the worker does (offline use, what it caches) allow it.
    serviceWorkers: 'block',
    // Settings' "Show the plan and steps open by default" is on in every test's context unless its file
    // says otherwise: test/browser/app-test.ts, whose `test` the specs import.
  },
  webServer: {
    command: testServerCommand(process.env, outDir, previewPort),
    url: `http://127.0.0.1:${previewPort}/`,
    reuseExistingServer: reuseServer(process.env),
    timeout: 180_000,
  },
});
