import AxeBuilder from '@axe-core/playwright';
import { ENGINE_CACHE } from '../../build/engine-assets.ts';
import { PLANNER_MODEL_ID, PLANNER_TASKS, plannerModel, requestedSchema } from '../provider/planner-model.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { askQuestion, logErrors } from './app-steps.ts';
import { expect, type Page, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// The engine's code is kept for offline use by the app's service worker (blocked by default: playwright.config.ts).
test.use({ serviceWorkers: 'allow' });

// The conductor as a planner on a local OpenAI-compatible server (what Ollama or llama.cpp server would be
// with a 14B model): the test provider's scripted planner answers the plan's JSON schema with a plan, over
// real HTTP with strict CORS from the conductor thread, and the test provider's workers run it. Planning
// stays on the machine: the planner's requests are in the ledger as local planning, and a planner URL
// that is not loopback is refused before anything is sent.

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'strict',
    // The plan waits after its first step (the first `}` of the pretty-printed plan) until `hurry()`.
    models: [
      {
        ...plannerModel(),
        latency: { firstTokenMs: 0, perTokenMs: 0, holdWhen: (sent) => sent.includes('}') },
      },
    ],
  });
});
test.afterAll(() => provider.close());
test.describe.configure({ mode: 'serial' });

async function openLocalServerSetup(page: Page) {
  await page.goto('/#/start');
  await expect(page.getByTestId('capabilities')).toHaveAttribute('data-ready', 'true');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('local-server');
  await expect(setup.getByTestId('local-server-setup')).toBeVisible();
  return setup;
}

const plannerRequests = () =>
  provider.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path === '/v1/chat/completions' &&
      (r.body as { model?: unknown } | undefined)?.model === PLANNER_MODEL_ID,
  );

test('a local server plans a question, the pool runs it, and the ledger lists the planner requests as local planning', async ({
  page,
}) => {
  test.setTimeout(180_000);
  logErrors(page);
  await seedApp(page, {
    pool: [
      modelWorker('w1', provider.baseURL, 'table', 'Answerer'),
      modelWorker('w2', provider.baseURL, 'upper', 'Checker'),
    ],
  });
  const setup = await openLocalServerSetup(page);
  // Ollama's default is offered first, with its CORS hint for this page's origin.
  await expect(setup.getByLabel('Server base URL')).toHaveValue('http://localhost:11434/v1');
  await expect(setup.getByTestId('local-server-cors')).toContainText(
    `OLLAMA_ORIGINS=${new URL(page.url()).origin}`,
  );
  await setup.getByLabel('Server', { exact: true }).selectOption('llamacpp');
  await expect(setup.getByLabel('Server base URL')).toHaveValue('http://localhost:8080/v1');
  await expect(setup.getByTestId('local-server-cors')).toContainText('llama-server');

  await setup.getByLabel('Server base URL').fill(provider.baseURL);
  // The server's models are asked for as soon as the URL is one on this machine.
  await expect(setup.getByTestId('local-server-models')).toContainText(/The server lists \d+ models: echo, /);
  // Every id is offered in the model field, the long list shortened in the line above.
  await expect(setup.locator(`#local-server-model-options option[value="${PLANNER_MODEL_ID}"]`)).toHaveCount(
    1,
  );
  await setup.getByLabel('Server model id').fill(PLANNER_MODEL_ID);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('model-ready')).toContainText(`${PLANNER_MODEL_ID} (local server)`);
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');

  provider.clearRequests();
  await askQuestion(page, 'What is 2+2?');
  const run = page.getByTestId('run');
  // The first step streamed to the executor and runs while the planner holds the rest of the plan: the
  // conductor's output is still shown. Shown only until that step started, a page drawn late (a busy
  // machine) never showed it at all when the tokens and the step came between two draws.
  await expect(run).toHaveAttribute('data-phase', 'running');
  await expect(page.getByTestId('graph-node-0')).toBeVisible();
  await expect(page.getByTestId('plan-stream')).toContainText('"worker": "w1"');
  provider.hurry();
  await expect(run).toHaveAttribute('data-phase', 'done', { timeout: 120_000 });
  // Once the plan is written, the graph and the steps show it.
  await expect(page.getByTestId('plan-stream')).toHaveCount(0);
  // The planner's second step ran on the Checker with the planner's task: upper case of that task.
  await expect(page.getByTestId('final-answer')).toContainText(PLANNER_TASKS.check.toUpperCase());

  // The planner got the plan's JSON schema, with the pool's workers as the only choices.
  const [planned] = plannerRequests();
  expect(planned?.body).toMatchObject({ stream: true, response_format: { type: 'json_schema' } });
  const schema = JSON.stringify(requestedSchema(planned?.body));
  expect(schema).toContain('"enum":[');
  expect(planned?.headers.origin).toBe(new URL(page.url()).origin);

  await page.goto('/#/settings');
  // This browser keeps nothing of the model, so there is nothing to delete.
  const storage = page.getByTestId('model-cache');
  await expect(storage).toContainText('nothing: the model stays in the local server');
  await expect(storage.getByRole('button', { name: /Delete/ })).toHaveCount(0);
  const host = new URL(provider.url).host;
  await page.goto('/#/ledger');
  const planning = page.getByTestId('ledger-panel').locator('tbody tr', { hasText: 'local planning' });
  // The model list asked while typing, the one at Connect, and the plan itself.
  await expect(planning).not.toHaveCount(0);
  expect(await planning.count()).toBeGreaterThanOrEqual(3);
  await expect(planning.first()).toContainText(host);
  await expect(planning.first()).toContainText('200');
  // The plan itself carries the tokens the server counted (prompt / completion); the model lists none.
  // (The row's text runs its cells together: "…8.7 KB401 / 40".)
  await expect(planning.filter({ hasText: /[1-9]\d* \/ [1-9]\d*$/ })).toHaveCount(1);

  // The engine's code came from the engine folder and is kept for offline use (it is not precached).
  const engineFiles = await page.evaluate(async (name) => {
    const keys = await (await caches.open(name)).keys();
    return keys.map((request) => new URL(request.url).pathname);
  }, ENGINE_CACHE);
  expect(engineFiles.some((path) => /\/assets\/engine\/local-server-[^/]+\.js$/.test(path))).toBe(true);

  // The choice is remembered: after a reload the same server and model are the conductor again.
  await page.goto('/#/start');
  await page.reload();
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready', {
    timeout: 30_000,
  });
  await expect(page.getByTestId('model-ready')).toContainText(`${PLANNER_MODEL_ID} (local server)`);
  await expect(page.getByTestId('conductor-setup').getByLabel('Server base URL')).toHaveValue(
    provider.baseURL,
  );
});

test('a planner URL that is not on this machine is refused with a clear message, and nothing is sent', async ({
  page,
}) => {
  const sent: string[] = [];
  page.context().on('request', (request) => sent.push(request.url()));
  const setup = await openLocalServerSetup(page);
  for (const url of ['http://localhost.evil.example:11434/v1', 'https://planner.example.com/v1']) {
    await setup.getByLabel('Server base URL').fill(url);
    await setup.getByLabel('Server model id').fill('qwen2.5:32b');
    const field = setup.getByLabel('Server base URL');
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(setup.getByRole('alert')).toContainText(
      `The planner server must run on this machine (localhost, 127.x.x.x or [::1]), and ${new URL(url).host} is not`,
    );
    await setup.getByTestId('load-model').click();
    await expect(field).toBeFocused();
  }
  await expect(page.getByTestId('conductor-status')).not.toHaveAttribute('data-state', 'loading');
  await expect(page.getByTestId('model-ready')).toHaveCount(0);
  // The form, with its error showing, is usable with a screen reader and a keyboard.
  const results = await new AxeBuilder({ page })
    .include('[data-testid="local-server-setup"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa'])
    .analyze();
  expect(
    results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
  ).toEqual([]);
  expect(sent.filter((url) => url.includes('example'))).toEqual([]);
});

test('a local server that does not answer: the error names it and says how to let the page call it', async ({
  page,
}) => {
  const setup = await openLocalServerSetup(page);
  await setup.getByLabel('Server', { exact: true }).selectOption('lmstudio');
  // Nothing listens on port 9 here.
  await setup.getByLabel('Server base URL').fill('http://127.0.0.1:9/v1');
  await expect(setup.getByTestId('local-server-models')).toContainText(
    'The planner server at http://127.0.0.1:9 did not answer',
  );
  await setup.getByLabel('Server model id').fill('qwen2.5-14b-instruct');
  await setup.getByTestId('load-model').click();
  const error = page.getByTestId('model-error');
  await expect(error).toContainText('The planner server at http://127.0.0.1:9 did not answer');
  await expect(error).toHaveAttribute('data-suggestion', 'server-setup');
  await expect(error.getByTestId('hint-server-setup')).toContainText(
    'Check that the server is running at http://127.0.0.1:9. Enable CORS for LM Studio',
  );
});
