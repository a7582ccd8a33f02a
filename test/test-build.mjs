// The app build the browser tests run against. Plain JavaScript, shared by playwright.config.ts (its web
// server builds it first) and test/run-all.mjs, which builds it while the typecheck and lint run and then
// tells the config so (BATON_PREBUILT=1): the build is mostly one thread, and those leave the second core
// partly idle, where after them it had both cores and used one.

/**
 * The folder of the test build: one per checkout or helper run (BATON_DIST), so parallel runs share none.
 * @param {Record<string, string | undefined>} env
 * @returns {string}
 */
export function testBuildDir(env) {
  return env.BATON_DIST ?? 'dist-test';
}

/**
 * The `npx` arguments that make the test build.
 * @param {string} outDir
 * @returns {string[]}
 */
export function testBuildArgs(outDir) {
  return ['vite', 'build', '--mode', 'test', '--logLevel', 'warn', '--outDir', outDir];
}

/**
 * The web server's command: build (unless BATON_PREBUILT=1 says it is built) and serve on 127.0.0.1:`port`.
 * @param {Record<string, string | undefined>} env
 * @param {string} outDir
 * @param {number} port
 * @returns {string}
 */
export function testServerCommand(env, outDir, port) {
  const preview = `npx vite preview --mode test --outDir ${outDir} --host 127.0.0.1 --port ${port} --strictPort`;
  return env.BATON_PREBUILT === '1' ? preview : `npx ${testBuildArgs(outDir).join(' ')} && ${preview}`;
}
