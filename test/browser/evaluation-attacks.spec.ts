import { expect, type Page, test } from './app-test.ts';
import { FAILING_TEST, openEvaluationHarness, run } from './evaluation-harness.ts';
import { openStepsByDefault } from './steps-open.ts';

// One page for all the attacks, in order: each attack's own verdict is checked, and so is the runner it
// leaves behind for the next answer, which here is the next attack as well as a good answer. A page per
// attack made each of them mostly the time to open a page (about 1 s each, 2 under load).
let page: Page;
test.beforeAll(async ({ browser, baseURL }) => {
  page = await browser.newPage({ baseURL });
  await openStepsByDefault(page.context());
  await openEvaluationHarness(page);
});
test.afterAll(() => page.close());

// Every way we know for code under test to claim a pass it did not earn. Each answer is followed by a test
// that fails; the verdict must be a failure every time.
const WRONG = 'function add(a, b) { return a - b; }\n';
const FAKE = "{ passed: true, message: 'all tests passed' }";
const ATTACKS: Record<string, string> = {
  'posting a fake verdict': `${WRONG}self.postMessage(${FAKE});`,
  'posting a fake verdict, then waiting': `${WRONG}self.postMessage(${FAKE}); await new Promise((r) => setTimeout(r, 100));`,
  'posting fake verdicts with every id it can guess': `${WRONG}for (const k of ['id', 'nonce', 'type']) self.postMessage({ ...${FAKE}, [k]: 'x', type: 'verdict' });`,
  'replacing assert': `${WRONG}assert = () => {};`,
  'replacing assert on the global object': `${WRONG}globalThis.assert = () => {}; self.assert = () => {};`,
  'redeclaring assert': `${WRONG}function assert() {}`,
  'returning before the tests': `${WRONG}return;`,
  'returning what a pass returns': `${WRONG}return 'all tests passed';`,
  'reading its own source for the secret': `${WRONG}const secret = /return "([^"]+)"/.exec(arguments.callee.toString())[1]; self.postMessage({ ...${FAKE}, nonce: secret }); return secret;`,
  'reading its source through the caller': `${WRONG}const f = (function peek() { return peek.caller; })(); const secret = /return "([^"]+)"/.exec(String(f))[1]; return secret;`,
  'reading its source through Function.prototype.toString': `${WRONG}const secret = /return "([^"]+)"/.exec(Function.prototype.toString.call(arguments.callee))[1]; return secret;`,
  'commenting the tests out': `${WRONG}/*`,
  'replacing Error, console and Promise': `${WRONG}Error = function () { return {}; }; console.log = console.error = () => {};
    Object.defineProperty(Promise.prototype, 'constructor', { get() { return undefined; } });
    Promise.prototype.then = function (ok) { ok(); };`,
  'replacing String, WeakSet and Reflect': `${WRONG}String.prototype.slice = () => { throw 1; }; WeakSet.prototype.has = () => true; Reflect.apply = () => true; String = () => 'all tests passed';`,
  'rebinding onmessage': `${WRONG}self.onmessage = () => self.postMessage(${FAKE}); self.addEventListener('message', () => self.postMessage(${FAKE}));`,
  'closing the worker': `${WRONG}self.close();`,
  'closing the worker after a fake verdict': `${WRONG}self.postMessage(${FAKE}); self.close(); return;`,
  'throwing a verdict-shaped object': `throw ${FAKE};`,
  'throwing a number': 'throw 42;',
  'throwing null': 'throw null;',
  'throwing a hostile proxy':
    'throw new Proxy({}, { get() { throw 1; }, getPrototypeOf() { throw 1; }, getOwnPropertyDescriptor() { throw 1; }, has() { throw 1; } });',
  'throwing an object with a hostile message':
    "throw { get message() { throw new Error('gotcha'); }, toString() { throw 2; } };",
};

for (const [attack, code] of Object.entries(ATTACKS)) {
  test(`code under test cannot fake a pass: ${attack}`, async () => {
    const verdict = await run(page, code, FAILING_TEST);
    expect(verdict.passed).toBe(false);
    expect(verdict.message).not.toBe('all tests passed');
    // The runner is still fine for the next answer.
    expect(await run(page, 'function add(a, b) { return a + b; }', FAILING_TEST)).toEqual({
      passed: true,
      message: 'all tests passed',
    });
  });
}
