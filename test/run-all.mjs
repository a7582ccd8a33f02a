// `npm test`: every check the project has, in the order that fails fastest.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { ensureChromium } from './chromium-setup.mjs';
import { testBuildArgs, testBuildDir } from './test-build.mjs';

// Where Playwright's own Chromium is or would be installed; undefined when Playwright cannot say.
async function playwrightPath() {
  try {
    const { chromium } = await import('@playwright/test');
    return () => {
      try {
        return chromium.executablePath();
      } catch {
        return undefined;
      }
    };
  } catch {
    return () => undefined;
  }
}

const chromiumSetup = ensureChromium({
  env: process.env,
  existsSync,
  playwrightPath: await playwrightPath(),
  run: (command, args) => spawnSync(command, args, { stdio: 'inherit', env: process.env }),
  log: (line) => console.log(line),
});
if (!chromiumSetup.ok) {
  console.error(chromiumSetup.message);
  process.exit(1);
}
const chromium = chromiumSetup.path;
process.env.CHROMIUM_PATH = chromium;

function step(name, command, args) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  return result.status === 0;
}

rmSync('test-results', { recursive: true, force: true });
mkdirSync('test-results');
// The browser tests' build is made meanwhile, beside the typecheck and lint (test/test-build.mjs says why);
// its output goes to a file, shown when it is done, so that it does not interleave with theirs.
const buildArgs = testBuildArgs(testBuildDir(process.env));
const buildLogPath = 'test-results/build.log';
const buildLog = openSync(buildLogPath, 'w');
const building = spawn('npx', buildArgs, { stdio: ['ignore', buildLog, buildLog], env: process.env });
const built = new Promise((resolve) => {
  building.on('error', () => resolve(false));
  building.on('exit', (code) => resolve(code === 0));
});
const typecheck = step('typecheck', 'npx', ['tsc', '-b']);
const lint = step('lint', 'npx', ['biome', 'check', '.']);
console.log(`\n=== build (made beside the typecheck and lint): npx ${buildArgs.join(' ')}`);
const buildOk = await built;
closeSync(buildLog);
process.stdout.write(readFileSync(buildLogPath, 'utf8'));
process.env.BATON_PREBUILT = '1';
const results = {
  typecheck,
  lint,
  build: buildOk,
  unit: step('unit', 'npx', [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    '--outputFile.json=test-results/vitest.json',
  ]),
  // Without a build there is nothing to test in a browser (and an older build must not be tested instead).
  browser: buildOk && step('browser', 'npx', ['playwright', 'test']),
};

let passed = 0;
let failed = 0;
let skipped = 0;
// Named again at the end: a CI log is often read from its tail, far below the failure itself.
const failures = [];
if (existsSync('test-results/vitest.json')) {
  const v = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + v.numTodoTests;
  for (const file of v.testResults)
    for (const test of file.assertionResults)
      if (test.status === 'failed') failures.push(`unit: ${file.name} › ${test.fullName}`);
}
if (existsSync('test-results/playwright.json')) {
  const report = JSON.parse(readFileSync('test-results/playwright.json', 'utf8'));
  const p = report.stats;
  passed += p.expected + p.flaky;
  failed += p.unexpected;
  skipped += p.skipped;
  const walk = (suite) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests)
        if (test.status === 'unexpected') failures.push(`browser: ${spec.file}:${spec.line} › ${spec.title}`);
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites) walk(suite);
}
for (const [name, ok] of Object.entries(results))
  if (!ok && name !== 'unit' && name !== 'browser') failed += 1;
console.log(
  `\nchecks: ${Object.entries(results)
    .map(([n, ok]) => `${n} ${ok ? 'ok' : 'FAILED'}`)
    .join(', ')}`,
);
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(Object.values(results).every(Boolean) ? 0 : 1);
