import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRun } from '../../../src/executor/executor.ts';
import { resumedStatuses } from '../../../src/executor/resume.ts';
import type { ExecutorEvent } from '../../../src/executor/types.ts';
import { createOpenAITransport } from '../../../src/providers/openai-transport.ts';
import { StepRecordSchema } from '../../../src/records/record-schema.ts';
import type { StepRecord } from '../../../src/records/runs-db.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';
import { SEARCH_SOURCES } from '../../provider/dialects/web-search.ts';
import { directFetch } from '../../provider/direct-fetch.ts';
import { type RecordedRequest, startProvider, type TestProvider } from '../../provider/server.ts';

// A searching worker's sources on its step: kept once each, in the step's record, never in what later steps
// are sent; over real HTTP against the test provider speaking OpenRouter's dialect.

let provider: TestProvider;
beforeAll(async () => {
  // Perplexity-like repetition: the same page cited on the message again, under another title.
  provider = await startProvider({
    dialect: 'openrouter',
    models: [
      {
        id: 'repeater',
        behaviour: { kind: 'fixed', text: 'It rained.' },
        search: { sources: [...SEARCH_SOURCES, { url: SEARCH_SOURCES[0]!.url, title: 'Same page again' }] },
      },
    ],
  });
});
afterAll(() => provider.close());

function worker(id: string, model: string, webSearch: boolean): WorkerSpec {
  return workerSpec({
    id,
    providerId: 'openrouter',
    baseURL: provider.baseURL,
    model,
    ...(webSearch ? { webSearch: true } : {}),
  });
}

const posts = (): RecordedRequest[] => provider.requests.filter((r) => r.method === 'POST');
const SOURCES = SEARCH_SOURCES.map(({ url, title }) => ({ url, title }));

describe('citations on a step', () => {
  it('keeps each source once on the searching step, in its record, and out of later steps', async () => {
    provider.clearRequests();
    const events: ExecutorEvent[] = [];
    const handle = startRun({
      question: 'Did it rain?',
      plan: {
        steps: [
          { worker: 's', task: 'Search the web.', sees: [] },
          { worker: 'w', task: 'Sum it up.', sees: [0] },
        ],
      },
      pool: [worker('s', 'repeater', true), worker('w', 'echo', false)],
      transport: createOpenAITransport({ fetch: directFetch }),
      onEvent: (event) => events.push(event),
    });
    const result = await handle.result;
    expect(result.status).toBe('done');
    const [searched, written] = result.steps;
    expect(searched?.citations).toEqual(SOURCES);
    expect(written?.citations).toBeUndefined();
    // The step's last event carries them, so the page and the store have them when the step is done.
    const done = events.find((e) => e.type === 'step-done' && e.index === 0);
    expect(done && 'status' in done ? done.status.citations : undefined).toEqual(SOURCES);
    // Only the answer is context: the second step's request holds no source.
    const second = JSON.stringify(posts()[1]?.body);
    expect(second).toContain('It rained.');
    for (const source of SEARCH_SOURCES) expect(second).not.toContain(source.url);
    // The record reads back with them.
    const record = StepRecordSchema.parse({ ...searched, runId: 'r1' });
    expect(record.citations).toEqual(SOURCES);
  });

  /** A stored step of the searching worker. */
  const stored = (overrides: Partial<StepRecord>): StepRecord => ({
    runId: 'r1',
    index: 0,
    worker: 's',
    task: 'Search.',
    sees: [],
    depth: 0,
    state: 'done',
    text: 'Answer',
    timings: { queuedAt: 1 },
    attempts: 1,
    ...overrides,
  });

  it('a resumed step starts without the sources of the answer it lost', () => {
    const [status] = resumedStatuses(
      [stored({ state: 'running', text: 'Half an ans', citations: SOURCES })],
      [worker('s', 'repeater', true)],
      new Map(),
    );
    expect(status?.state).toBe('queued');
    expect(status?.citations).toBeUndefined();
  });

  it('a stored record loses a source that is not an http(s) link, and a damaged list, never the step', () => {
    const mixed = StepRecordSchema.parse({
      ...stored({}),
      citations: [
        { url: 'javascript:alert(document.domain)', title: 'Click me' },
        { url: 'https://ok.example/page', title: 'Fine' },
      ],
    });
    expect(mixed.citations).toEqual([{ url: 'https://ok.example/page', title: 'Fine' }]);
    const damaged = StepRecordSchema.parse({ ...stored({}), citations: 'https://not-a-list.example/' });
    expect(damaged.citations).toBeUndefined();
    expect(damaged.text).toBe('Answer');
  });
});
