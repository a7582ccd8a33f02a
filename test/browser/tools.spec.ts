import { workerFromPreset } from '../../src/pool/worker-rules.ts';
import { presetById } from '../../src/providers/catalog.ts';
import { startMcpServer, type TestMcpServer } from '../mcp/server.ts';
import { PLANNER_MODEL_ID, plannerModel } from '../provider/planner-model.ts';
import { startProvider, type TestProvider } from '../provider/server.ts';
import { askQuestion, logErrors } from './app-steps.ts';
import { expect, test } from './app-test.ts';
import { modelWorker, seedApp } from './seed-app.ts';

// A tool end to end: the MCP server made with the SDK is added in Settings → Tools, the conductor (the test
// provider's scripted planner on the local server engine) grants the step its tool, review shows the grant,
// the step's model calls it, the page calls the server, and the ledger's tool-call rows match the server's
// own log one for one.

test.use({ serviceWorkers: 'allow' });

let provider: TestProvider;
let mcp: TestMcpServer;
let blocked: TestMcpServer;
test.beforeAll(async () => {
  provider = await startProvider({
    cors: 'strict',
    models: [
      plannerModel(),
      {
        id: 'searcher',
        behaviour: { kind: 'echo' },
        toolCalls: { rounds: [[{ name: 'tracker__search_issues', arguments: { query: 'login' } }]] },
      },
    ],
  });
  mcp = await startMcpServer();
  blocked = await startMcpServer({ cors: 'off' });
});
test.afterAll(async () => {
  await provider.close();
  await mcp.close();
  await blocked.close();
});

test('a server added in Settings, a grant in review, a call from the page, one ledger row per call', async ({
  page,
}) => {
  test.setTimeout(120_000);
  logErrors(page);
  await seedApp(page, {
    pool: [
      modelWorker('w1', provider.baseURL, 'searcher', 'Searcher'),
      // OpenAI's search models take no function tools: review must refuse a grant moved to it.
      { ...workerFromPreset(presetById('openai')!, 'gpt-4o-mini-search-preview', 'w2'), label: 'Finder' },
    ],
    plan: { maxSteps: 1 },
  });

  await page.goto('/#/settings/tools');
  const panel = page.getByTestId('tools-panel');
  // A server that does not allow this page (no CORS) is named, with what it must allow for this origin.
  await panel.getByLabel('Name (as plans write it)').fill('blocked');
  await panel.getByLabel('Server URL').fill(blocked.url);
  await panel.getByTestId('tool-server-add').click();
  const origin = new URL(page.url()).origin;
  await expect(panel.getByTestId('tools-error')).toContainText(
    'does not allow requests from this page (CORS)',
  );
  await expect(panel.getByTestId('tools-error')).toContainText(
    `Access-Control-Allow-Origin: ${origin}, Access-Control-Allow-Methods: POST, OPTIONS, Access-Control-Allow-Headers: content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id, and Access-Control-Expose-Headers: mcp-session-id.`,
  );
  await expect(panel.getByTestId('tool-server-blocked')).toHaveCount(0);

  await panel.getByLabel('Name (as plans write it)').fill('tracker');
  await panel.getByLabel('Server URL').fill(mcp.url);
  await panel.getByTestId('tool-server-add').click();
  const server = panel.getByTestId('tool-server-tracker');
  await expect(server).toContainText('tracker.search_issues');
  await expect(server).toContainText('read-only');
  await expect(server).toContainText('may delete or overwrite');
  // Read-only tools are offered at first; the destructive one only once ticked.
  await expect(panel.getByTestId('offer-tracker.search_issues')).toBeChecked();
  await expect(panel.getByTestId('offer-tracker.delete_issue')).not.toBeChecked();

  await page.goto('/#/start');
  const setup = page.getByTestId('conductor-setup');
  await setup.getByLabel('Model', { exact: true }).selectOption('local-server');
  await setup.getByLabel('Server base URL').fill(provider.baseURL);
  await setup.getByLabel('Server model id').fill(PLANNER_MODEL_ID);
  await setup.getByTestId('load-model').click();
  await expect(page.getByTestId('conductor-status')).toHaveAttribute('data-state', 'ready');

  await askQuestion(page, 'Which issues mention login?', { review: true });
  const tools = page.getByTestId('edit-step-0-tools');
  await expect(tools).toContainText('tracker.search_issues');
  // The user's edit is checked as the conductor's plan is: the grant on a worker that cannot call tools
  // is refused by name, and the plan cannot run until the step goes back.
  const worker = page.getByLabel('Worker', { exact: true });
  await worker.selectOption('w2');
  await expect(page.getByTestId('edit-step-0-issues')).toContainText(
    'gives tools to "Finder", whose model cannot call tools',
  );
  await expect(page.getByTestId('run-plan')).toBeDisabled();
  await worker.selectOption('w1');
  await expect(page.getByTestId('edit-step-0-issues')).toHaveCount(0);
  await page.getByTestId('run-plan').click();
  await expect(page.getByTestId('run')).toHaveAttribute('data-phase', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('final-answer')).toContainText('#1 Login page times out');
  // The step says which tool it called and how it went; its result is not shown anywhere but in the answer.
  await expect(page.getByTestId('step-tools-0')).toHaveText('Tools: tracker.search_issues (called)');

  expect(mcp.calls.map((c) => c.tool)).toEqual(['search_issues']);
  await page.goto('/#/ledger');
  const calls = page
    .getByTestId('ledger-panel')
    .locator('tbody tr', { hasText: 'tool tracker.search_issues' });
  await expect(calls).toHaveCount(mcp.calls.length);
});
