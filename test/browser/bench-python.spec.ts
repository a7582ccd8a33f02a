import { gzipSync } from 'node:zlib';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { expect, type Page, test } from './app-test.ts';

// Published HumanEval, as a user brings it: `HumanEval.jsonl.gz` from github.com/openai/human-eval
// (data/HumanEval.jsonl.gz), gzipped JSONL, one record a line with task_id, prompt, entry_point,
// canonical_solution and test. Three of its real tasks, as published; no JavaScript task in the set.
const HUMANEVAL = [
  {
    task_id: 'HumanEval/0',
    prompt:
      'from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n',
    entry_point: 'has_close_elements',
    canonical_solution:
      '    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n',
    test: "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False\n    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True\n    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) == False\n    assert candidate([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1) == True\n    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) == True\n    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 0.5) == False\n\n",
  },
  {
    task_id: 'HumanEval/2',
    prompt:
      '\n\ndef truncate_number(number: float) -> float:\n    """ Given a positive floating point number, it can be decomposed into\n    and integer part (largest integer smaller than given number) and decimals\n    (leftover part always smaller than 1).\n\n    Return the decimal part of the number.\n    >>> truncate_number(3.5)\n    0.5\n    """\n',
    entry_point: 'truncate_number',
    canonical_solution: '    return number % 1.0\n',
    test: "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n    assert abs(candidate(1.33) - 0.33) < 1e-6\n    assert abs(candidate(123.456) - 0.456) < 1e-6\n",
  },
  {
    task_id: 'HumanEval/4',
    prompt:
      'from typing import List\n\n\ndef mean_absolute_deviation(numbers: List[float]) -> float:\n    """ For a given list of input numbers, calculate Mean Absolute Deviation\n    around the mean of this dataset.\n    Mean Absolute Deviation is the average absolute difference between each\n    element and a centerpoint (mean in this case):\n    MAD = average | x - x_mean |\n    >>> mean_absolute_deviation([1.0, 2.0, 3.0, 4.0])\n    1.0\n    """\n',
    entry_point: 'mean_absolute_deviation',
    canonical_solution:
      '    mean = sum(numbers) / len(numbers)\n    return sum(abs(x - mean) for x in numbers) / len(numbers)\n',
    test: "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert abs(candidate([1.0, 2.0, 3.0]) - 2.0/3.0) < 1e-6\n    assert abs(candidate([1.0, 2.0, 3.0, 4.0]) - 1.0) < 1e-6\n    assert abs(candidate([1.0, 2.0, 3.0, 4.0, 5.0]) - 6.0/5.0) < 1e-6\n\n",
  },
];
const GZIPPED = gzipSync(`${HUMANEVAL.map((record) => JSON.stringify(record)).join('\n')}\n`);

// A JavaScript task in Baton's own format, for the set whose Python items cannot be scored.
const JS_QUESTION = 'Write add(a, b) in JavaScript.';
const JS_TASK = {
  id: 'add',
  kind: 'code',
  question: JS_QUESTION,
  answer: '',
  tests: 'assert(add(2, 3) === 5);',
};

/** The HumanEval record the request is about (its question holds the prompt, with the function's name). */
function recordOf(body: Record<string, unknown>) {
  const text = JSON.stringify(body.messages);
  return HUMANEVAL.find((r) => text.includes(`def ${r.entry_point}(`));
}
const asksForJs = (body: Record<string, unknown>) => JSON.stringify(body.messages).includes(JS_QUESTION);
const fenced = (code: string, language = 'python') =>
  `Here is the function:\n\n\`\`\`${language}\n${code}\`\`\``;

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'open',
    models: [
      // A chat model that writes the whole function: the reference solution.
      {
        id: 'reference',
        behaviour: {
          kind: 'request',
          fn: (body) => {
            if (asksForJs(body)) return fenced('function add(a, b) { return a + b; }\n', 'js');
            const record = recordOf(body);
            return record ? fenced(record.prompt + record.canonical_solution) : 'I do not know.';
          },
        },
      },
      // One that writes a function that returns nothing: every check fails.
      {
        id: 'broken',
        behaviour: {
          kind: 'request',
          fn: (body) => {
            if (asksForJs(body)) return fenced('function add(a, b) { return a - b; }\n', 'js');
            const record = recordOf(body);
            return record ? fenced(`${record.prompt}    return None\n`) : 'I do not know.';
          },
        },
      },
    ],
  });
});
test.afterAll(() => provider.close());
// Pyodide starts once per page (seconds, or minutes on a loaded machine), then scores every item: never a
// speed check.
test.describe.configure({ timeout: 420_000 });

async function open(page: Page, extra: Record<string, string> = {}): Promise<void> {
  const query = new URLSearchParams({
    base: provider.baseURL,
    models: 'reference,broken',
    labels: 'Reference model,Broken model',
    ...extra,
  });
  await page.goto(`/test/pages/bench.html?${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

async function addSingles(page: Page): Promise<void> {
  for (const worker of ['reference', 'broken']) {
    await page.getByLabel('Worker', { exact: true }).selectOption(worker);
    await page.getByRole('button', { name: 'Add strategy' }).click();
  }
  await expect(page.getByTestId('chosen-strategies').locator('li')).toHaveText([
    /Single \(Reference model\)/,
    /Single \(Broken model\)/,
  ]);
}

const cell = (page: Page, strategy: string, col: string) =>
  page.getByTestId('results-table').locator(`tr[data-strategy="single:${strategy}"] td[data-col="${col}"]`);

test('the published HumanEval.jsonl.gz is read and scored in Python: references pass, broken answers fail with why', async ({
  page,
}) => {
  // A right answer is never failed by the clock on a loaded machine: each run may take a minute here.
  await open(page, { codeTimeoutMs: '60000' });
  await page.getByLabel('Import JSONL').check();
  await page.getByLabel('JSONL or CSV file').setInputFiles({
    name: 'HumanEval.jsonl.gz',
    mimeType: 'application/gzip',
    buffer: GZIPPED,
  });
  await expect(page.getByTestId('taskset-summary')).toContainText(
    '3 tasks (3 python) from HumanEval.jsonl.gz (gzip), read as HumanEval',
  );
  await expect(page.getByTestId('taskset-errors')).toHaveCount(0);
  await addSingles(page);
  await page.getByRole('button', { name: 'Run bench (6 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 400_000 });

  await expect(cell(page, 'reference', 'accuracy')).toHaveText('100% (3/3)');
  await expect(cell(page, 'broken', 'accuracy')).toHaveText('0% (0/3)');
  await expect(cell(page, 'broken', 'failures')).toHaveText('0');
  await expect(page.getByTestId('bench-not-scored')).toHaveCount(0);

  // A wrong Python item says why: the test's error, the question and the answer read as they were written.
  const miss = page.locator(
    '[data-testid="bench-miss"][data-strategy="single:broken"][data-task="HumanEval/2"]',
  );
  await expect(miss.locator('summary')).toContainText('No step had it');
  await miss.locator('summary').click();
  await expect(miss.getByTestId('miss-detail')).toHaveText(/^(AssertionError|TypeError: .+)$/);
  // innerText, not textContent: what is rendered, so collapsed line breaks or indentation would show.
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is checked
  const question = await miss.getByTestId('miss-question').innerText();
  expect(question).toContain('def truncate_number(number: float) -> float:\n    """ Given a positive');
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is checked
  const read = await miss.getByTestId('miss-extracted').innerText();
  expect(read).toContain('    Return the decimal part of the number.\n');
  expect(read.trimEnd().endsWith('\n    return None')).toBe(true);
});

test('items that cannot be scored here are reported apart, with why, and left out of accuracy', async ({
  page,
}) => {
  // Nothing listens on port 9: Python's runtime cannot be had, as on a first visit without a network.
  // JavaScript still runs, so the set's one JavaScript item is scored.
  await open(page, { pyodide: 'http://127.0.0.1:9/pyodide/' });
  await page.getByLabel('Import JSONL').check();
  const python = HUMANEVAL.slice(0, 2).map((r) => ({
    id: r.task_id,
    kind: 'python',
    question: `Complete this Python function.\n\n${r.prompt}`,
    answer: r.prompt + r.canonical_solution,
    python: { style: 'check', prompt: r.prompt, tests: r.test, entryPoint: r.entry_point },
  }));
  await page.getByLabel('Or paste JSONL').fill([...python, JS_TASK].map((t) => JSON.stringify(t)).join('\n'));
  await page.getByRole('button', { name: 'Read pasted tasks' }).click();
  await expect(page.getByTestId('taskset-summary')).toContainText('3 tasks (2 python, 1 code)');
  await addSingles(page);
  await page.getByRole('button', { name: 'Run bench (6 items)' }).click();
  await expect(page.getByTestId('bench-state')).toHaveText('Done', { timeout: 120_000 });

  // Accuracy, its interval and the paired difference are over the one scored item: not 33% (1/3).
  await expect(cell(page, 'reference', 'accuracy')).toHaveText('100% (1/1)');
  await expect(cell(page, 'broken', 'accuracy')).toHaveText('0% (0/1)');
  await expect(cell(page, 'reference', 'interval')).toHaveText('21%–100%');
  await expect(cell(page, 'broken', 'vs-best')).toHaveText(/^−100 points \(.*\), 0 won, 1 lost: /);
  for (const worker of ['reference', 'broken']) {
    await expect(cell(page, worker, 'unscored')).toHaveText('2');
    await expect(cell(page, worker, 'failures')).toHaveText('0');
  }
  const notScored = page.getByTestId('bench-not-scored');
  await expect(notScored).toContainText('4 items were not scored');
  await expect(notScored.getByTestId('not-scored-causes').locator('li')).toHaveText([
    /^4 × Python's runtime \(http:\/\/127\.0\.0\.1:9\/pyodide\/.+\) could not be downloaded/,
  ]);
  // The one wrong item is the JavaScript one; the unscored ones are in a list of their own.
  await expect(page.getByTestId('bench-miss')).toHaveCount(1);
  await expect(page.getByTestId('bench-miss')).toHaveAttribute('data-task', 'add');
  const causes = page.getByTestId('causes-table');
  await expect(causes.locator('tr[data-strategy="single:broken"] td[data-col="wrong"]')).toHaveText('1');
  await expect(causes.locator('tr[data-strategy="single:broken"] td[data-col="unscored"]')).toHaveText('2');
  await expect(page.getByTestId('bench-unscored-item')).toHaveCount(4);
  const item = page.getByTestId('bench-unscored-item').first();
  await item.locator('summary').click();
  await expect(item.getByTestId('unscored-reason')).toContainText('could not be downloaded');
});
