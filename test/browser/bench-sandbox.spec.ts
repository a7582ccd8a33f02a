import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, test } from './app-test.ts';
import { smallHeapTest } from './small-heap.ts';

// A code answer that allocates until the heap limit, then an ordinary one, scored in the Bench's own
// sandbox. The runaway answer must cost its item, never the page: the next item still scores.
const BOMB_QUESTION = 'Write grow() in JavaScript.';
const ADD_QUESTION = 'Write add(a, b) in JavaScript.';
const fenced = (code: string) => `Here it is:\n\n\`\`\`js\n${code}\n\`\`\``;
const TASKS = [
  {
    id: 'bomb',
    kind: 'code',
    question: BOMB_QUESTION,
    answer: '',
    tests: "assert(typeof grow === 'function');",
  },
  {
    id: 'add',
    kind: 'code',
    question: ADD_QUESTION,
    answer: '',
    tests: "assert(add(2, 3) === 5, 'add(2, 3)');",
  },
]
  .map((task) => JSON.stringify(task))
  .join('\n');

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      {
        id: 'coder',
        behaviour: {
          kind: 'table',
          answers: {
            [BOMB_QUESTION]: fenced(
              'function grow() {}\nconst a = []; for (;;) a.push(new Array(1e7).fill(0.5));',
            ),
            [ADD_QUESTION]: fenced('function add(a, b) { return a + b; }'),
          },
        },
      },
    ],
  });
});
test.afterAll(() => provider.close());

smallHeapTest(
  'a memory bomb in the Bench fails its item, and the page lives on to score the next',
  async ({ page }) => {
    // Reaching V8's heap limit takes several seconds on a loaded machine, more than the Bench's 5 s limit per
    // answer: this Bench's runner allows 120 s, so the crash, not the clock, ends the bomb's run.
    test.setTimeout(240_000);
    const query = new URLSearchParams({ base: provider.baseURL, models: 'coder', codeTimeoutMs: '120000' });
    await page.goto(`/test/pages/bench.html?${query}`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await page.getByLabel('Import JSONL').check();
    await page.getByLabel('Or paste JSONL').fill(TASKS);
    await page.getByRole('button', { name: 'Read pasted tasks' }).click();
    await expect(page.getByTestId('taskset-summary')).toContainText('2 tasks (2 code)');
    await page.getByLabel('Worker', { exact: true }).selectOption('coder');
    await page.getByRole('button', { name: 'Add strategy' }).click();
    await page.getByLabel('Concurrency').fill('1');

    // When the runner's process dies, Playwright marks the whole page crashed (it does so for any crashed
    // out-of-process frame) and refuses page.evaluate, although the page lives on: a CDP session of the
    // page's own target still reaches it, and everything after the click is read through that.
    const session = await page.context().newCDPSession(page);
    const read = async (expression: string): Promise<unknown> => {
      const { result } = await session.send('Runtime.evaluate', { expression, returnByValue: true });
      return result.value;
    };
    const cell = (col: string) =>
      `document.querySelector('[data-testid="bench-results"] tr[data-strategy="single:coder"] td[data-col="${col}"]')?.textContent`;

    await page.getByRole('button', { name: 'Run bench (2 items)' }).click();
    await expect
      .poll(() => read(`document.querySelector('[data-testid="bench-state"]')?.textContent`), {
        timeout: 150_000,
      })
      .toBe('Done');
    expect(await read(cell('accuracy'))).toBe('50% (1/2)');
    expect(await read(cell('failures'))).toBe('0');
    // Both items asked the model once: the bomb was an answer that failed its tests, not a failed request.
    expect(
      provider.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions'),
    ).toHaveLength(2);
    expect(await read('document.body.dataset.ready')).toBe('true');
  },
);
