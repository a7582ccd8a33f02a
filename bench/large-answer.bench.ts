// Long answers and stalled workers, through the real executor, egress, ledger and run store (IndexedDB
// from fake-indexeddb in node) against the local test provider:
// P22: time to finish a 5 MB streamed answer / a 0.5 MB one (linear: about 10);
// P23: seconds from a stalled worker's request to another worker's first token, with the default timeouts.
import 'fake-indexeddb/auto';
import { chatTransports } from '../src/egress/chat-transports.ts';
import { createEgress } from '../src/egress/egress.ts';
import { openLedger } from '../src/egress/ledger.ts';
import { DEFAULT_FIRST_TOKEN_TIMEOUT_MS, startRun } from '../src/executor/executor.ts';
import { openRunStore, type RunStore } from '../src/records/run-store.ts';
import { loadTokenizer } from '../src/shared/token-estimate.ts';
import type { WorkerSpec } from '../src/shared/worker-spec.ts';
import { startProvider, type TestProvider } from '../test/provider/server.ts';
import { median, round } from './stats.ts';
import type { Benchmark } from './types.ts';

const KIB = 1024;
const SMALL = 512 * KIB;
const LARGE = 5 * KIB * KIB;
const ROUNDS = 5;

/** What a step of the app runs with: a spend limit, a saved key of another host scrubbed from answers. */
const OTHER_KEY = 'sk-other-host-0123456789abcdef';

/**
 * `chars` of answer text as `chunk`-character pieces (the test provider streams one piece per token, a
 * token being "white space + word": words inside one piece are joined by `_`), or as one piece.
 */
function answerText(chars: number, chunk: number): string {
  const words = 'the_answer_is_forty-two,_because_of_reasons._Baton_streams_tokens;_'.repeat(
    Math.ceil(chunk / 60),
  );
  const pieces = Math.ceil(chars / chunk);
  const word = words.slice(0, chunk - 1);
  return Array.from({ length: pieces }, (_, i) => (i === 0 ? `${word}_` : ` ${word}`))
    .join('')
    .slice(0, chars);
}

interface Setup {
  provider: TestProvider;
  transport: ReturnType<typeof chatTransports>;
  store: RunStore;
  close(): Promise<void>;
}

let databases = 0;
async function setUp(options: Parameters<typeof startProvider>[0]): Promise<Setup> {
  const provider = await startProvider({ cors: 'open', ...options });
  const id = `${process.pid}-${databases++}`;
  const ledger = await openLedger(`bench-ledger-${id}`);
  const store = await openRunStore(`bench-runs-${id}`);
  const egress = createEgress({
    vault: { keyFor: async () => undefined, keysNotBoundTo: async () => [OTHER_KEY] },
    ledger,
  });
  return {
    provider,
    transport: chatTransports(egress),
    store,
    async close() {
      store.close();
      ledger.close();
      await provider.close();
    },
  };
}

function worker(provider: TestProvider, id: string, model: string): WorkerSpec {
  return {
    id,
    label: id,
    strengths: 'writes',
    providerId: 'custom',
    baseURL: provider.baseURL,
    model,
    maxConcurrency: 2,
    enabled: true,
    price: { inputPerM: 1, outputPerM: 1 },
  };
}

// ---- P22 ----

/** Milliseconds for one run of one step whose answer is `text`, to its end (stored, ledger complete). */
async function timeAnswer(setup: Setup, text: string): Promise<number> {
  const model = `answer-${databases++}`;
  setup.provider.setModel({
    id: model,
    behaviour: { kind: 'fixed', text },
    latency: { firstTokenMs: 0, perTokenMs: 0 },
  });
  const start = performance.now();
  const result = await startRun({
    question: 'Write a long answer.',
    pool: [worker(setup.provider, 'w', model)],
    transport: setup.transport,
    store: setup.store,
    spendLimitUsd: 100,
    plan: { steps: [{ worker: 'w', task: 'Write.', sees: [] }] },
  }).result;
  const ms = performance.now() - start;
  if (result.status !== 'done' || result.answer?.length !== text.length)
    throw new Error(`P22: the ${text.length}-character answer ended ${result.status}: ${result.error ?? ''}`);
  return ms;
}

/** Median times of the small and the large answer in `chunk`-character pieces, measured alternately. */
async function ratioFor(setup: Setup, chunk: number): Promise<{ small: number; large: number }> {
  const small = answerText(SMALL, chunk);
  const large = answerText(LARGE, chunk);
  const times = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const which of i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) {
      times[which].push(await timeAnswer(setup, which === 'small' ? small : large));
    }
  }
  return { small: median(times.small), large: median(times.large) };
}

let p22:
  | Promise<{ chunked: { small: number; large: number }; whole: { small: number; large: number } }>
  | undefined;
function measureP22() {
  p22 ??= (async () => {
    // No usage from the provider (the worst case: the tokenizer counts every answer), as many local
    // servers do; the tokenizer loaded, as on a page that has needed it once.
    const setup = await setUp({ usage: 'never' });
    try {
      await loadTokenizer();
      await timeAnswer(setup, answerText(64 * KIB, KIB)); // warm-up: modules, JIT, connections
      const chunked = await ratioFor(setup, KIB);
      const whole = await ratioFor(setup, LARGE);
      return { chunked, whole };
    } finally {
      await setup.close();
    }
  })();
  return p22;
}

// ---- P23 ----

const SUBSTITUTE_FIRST_TOKEN_MS = 300;

async function measureP23(): Promise<{ seconds: number; stalledRequests: number }> {
  const setup = await setUp({
    models: [
      {
        id: 'answers',
        behaviour: { kind: 'fixed', text: 'The substitute answers.' },
        latency: { firstTokenMs: SUBSTITUTE_FIRST_TOKEN_MS, perTokenMs: 10 },
      },
    ],
  });
  try {
    const stalled = worker(setup.provider, 'stalls', 'fault:stall');
    const substitute = worker(setup.provider, 'answers', 'answers');
    let firstToken: number | undefined;
    // Default timeouts and retries: only failover is on, as in the app.
    const result = await startRun({
      question: 'Anyone there?',
      pool: [stalled, substitute],
      transport: setup.transport,
      store: setup.store,
      failover: {},
      plan: { steps: [{ worker: 'stalls', task: 'Answer.', sees: [] }] },
      onEvent: (event) => {
        if (event.type === 'step-delta' && event.status.worker === 'answers' && firstToken === undefined)
          firstToken = Date.now();
      },
    }).result;
    const chats = setup.provider.requests.filter((r) => r.path === '/v1/chat/completions');
    const stalledAt = chats.find((r) => (r.body as { model?: string }).model === 'fault:stall')?.time;
    if (result.status !== 'done' || firstToken === undefined || stalledAt === undefined)
      throw new Error(`P23: the run ended ${result.status}: ${result.error ?? ''}`);
    return {
      seconds: (firstToken - stalledAt) / 1000,
      stalledRequests: chats.filter((r) => (r.body as { model?: string }).model === 'fault:stall').length,
    };
  } finally {
    await setup.close();
  }
}

export const benchmarks: Benchmark[] = [
  {
    id: 'p22-large-answer',
    title: 'P22: time to finish a 5 MB streamed answer / a 0.5 MB one (real executor, egress, ledger, store)',
    async run() {
      const { chunked, whole } = await measureP22();
      const chunkedRatio = chunked.large / chunked.small;
      const wholeRatio = whole.large / whole.small;
      return {
        value: round(Math.max(chunkedRatio, wholeRatio)),
        goal: 12,
        unit: '×',
        better: 'lower',
        notes:
          `the worse of two shapes, median of ${ROUNDS} each: 1 KB chunks ${round(chunkedRatio)}× ` +
          `(${round(chunked.large / 1000)} s vs ${round(chunked.small / 1000)} s), one chunk ` +
          `${round(wholeRatio)}× (${round(whole.large / 1000)} s vs ${round(whole.small / 1000)} s); no usage ` +
          'from the provider (o200k counts every answer), a spend limit, a foreign key scrubbed; 10× is linear',
      };
    },
  },
  {
    id: 'p23-stall-failover',
    title: "P23: seconds from a stalled worker's request to another worker's first token (default timeouts)",
    async run() {
      const { seconds, stalledRequests } = await measureP23();
      return {
        value: round(seconds),
        goal: 75,
        unit: 's',
        better: 'lower',
        notes:
          `first-token timeout ${DEFAULT_FIRST_TOKEN_TIMEOUT_MS / 1000} s (the default), failover on; the stalled ` +
          `worker was asked ${stalledRequests} time(s); the substitute's first token comes ` +
          `${SUBSTITUTE_FIRST_TOKEN_MS} ms after its request`,
      };
    },
  },
];
