// bench-linear: a long Bench must not slow with use. A 1,000-item bench of GSM8K-style questions,
// one strategy (one worker on the test provider), run by the app's own bench (src/app/bench: runBench, the
// bench store, each scored item kept as an outcome through the page's outcomes) with Settings' "What Baton
// learned" watcher running (auto mode following the outcome store) and Ask's marks loaded, all as the page
// wires them, over fake-indexeddb in Node: a real browser would take the bench's whole time budget for
// 1,000 items, and the path under test (bench → outcome store → auto mode) has no DOM in it. Requests go
// through the real egress (vault key, ledger) and HTTP to the test provider. The figure is the cost per item
// of the 901st–1,000th items over the 1st–100th: CPU time of this process (the machine is shared: wall time
// also counts other people's work), with the wall-time ratio in the notes.
import 'fake-indexeddb/auto';
import { createAutoMode } from '../src/app/auto-mode.ts';
import { createBench } from '../src/app/bench/bench.ts';
import type { BenchForm } from '../src/app/bench/bench-form.ts';
import { createOutcomes } from '../src/app/outcomes.ts';
import { chatTransports } from '../src/egress/chat-transports.ts';
import { createEgress } from '../src/egress/egress.ts';
import { openLedger } from '../src/egress/ledger.ts';
import { BenchStore } from '../src/evaluation/bench-store.ts';
import type { Task } from '../src/evaluation/taskset.ts';
import { presetById } from '../src/providers/catalog.ts';
import { openOutcomeStore } from '../src/records/outcome-store.ts';
import { openVault } from '../src/vault/vault.ts';
import { workerSpec } from '../test/fixtures/worker-spec.ts';
import { startProvider } from '../test/provider/server.ts';
import { round } from './stats.ts';
import type { Benchmark } from './types.ts';

const ITEMS = 1000;
const SLICE = 100;
/** A short bench first, in databases of its own, so the first hundred measured items are not the JIT's warm-up. */
const WARM_UP = 100;
const KEY = 'sk-bench-linear-AAAAAAAAAAAAAAAA';

/** GSM8K-style word problems (numeric answers, as src/evaluation/importers/gsm8k.ts imports them). */
function tasks(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `gsm-${i}`,
    kind: 'numeric' as const,
    question: `A baker sells ${i + 3} loaves a day and each loaf costs 4 dollars. How many dollars does the baker take in over ${(i % 6) + 2} days?`,
    answer: String((i + 3) * 4 * ((i % 6) + 2)),
  }));
}

/** The worker works the problem out, and gets every seventh wrong: both verdicts are stored. */
function solve(question: string): string {
  const [loaves, price, days] = (question.match(/\d+/g) ?? []).map(Number);
  const total = (loaves ?? 0) * (price ?? 0) * (days ?? 0);
  return `${loaves} loaves × ${price} dollars × ${days} days.\n#### ${(loaves ?? 0) % 7 === 0 ? total + 1 : total}`;
}

let runs = 0;
/** One bench of `n` items as the page runs it; the CPU and wall clock when each item's outcome was kept. */
async function benchOf(n: number): Promise<{ cpu: number[]; wall: number[]; learned: number }> {
  const name = `bench-linear-${process.pid}-${runs++}`;
  const provider = await startProvider({
    apiKey: KEY,
    models: [{ id: 'solver', behaviour: { kind: 'transform', fn: solve } }],
  });
  const [ledger, vault, outcomeStore, benchStore] = await Promise.all([
    openLedger(`${name}-ledger`),
    openVault(`${name}-vault`),
    openOutcomeStore(`${name}-outcomes`),
    BenchStore.open(`${name}-bench`),
  ]);
  try {
    await vault.saveKey({ providerId: 'p-test', origin: provider.url, key: KEY });
    const egress = createEgress({
      vault,
      ledger,
      presetFor: (id) =>
        id === 'p-test'
          ? { ...presetById('custom')!, id, name: 'Test provider', needsKey: true }
          : presetById(id),
    });
    const outcomes = createOutcomes({ outcomeStore: async () => outcomeStore });
    const auto = createAutoMode({ outcomeStore: async () => outcomeStore });
    // Settings' "What Baton learned" panel and Ask's marks follow the store, as on the page.
    await Promise.all([auto.watch(), outcomes.load()]);
    const cpu: number[] = [];
    const wall: number[] = [];
    const clock = () => {
      const used = process.cpuUsage();
      cpu.push((used.user + used.system) / 1000);
      wall.push(performance.now());
    };
    const bench = createBench({
      openStore: async () => benchStore,
      ownsStore: false,
      codeRunner: () => {
        throw new Error('these tasks have no code to run');
      },
      recordOutcome: async (outcome) => {
        await outcomes.record(outcome);
        clock();
      },
    });
    await bench.open();
    const pool = [
      workerSpec({
        id: 'w1',
        label: 'Solver',
        providerId: 'p-test',
        baseURL: provider.baseURL,
        model: 'solver',
        price: { inputPerM: 0.15, outputPerM: 0.6 },
      }),
    ];
    const form: BenchForm = {
      name: 'GSM8K-style',
      tasks: tasks(n),
      strategies: [{ id: 'single-w1', label: 'Solver alone', config: { kind: 'single', worker: 'w1' } }],
      concurrency: '2',
      spendCap: '',
    };
    clock();
    const controller = await bench.start(form, { pool, transport: chatTransports(egress) });
    if (!controller) throw new Error(`the bench did not start: ${bench.problem.value}`);
    const results = await controller.finished;
    const failed = results.filter((r) => r.status !== 'done');
    if (failed.length) throw new Error(`${failed.length} items failed, the first: ${failed[0]!.error}`);
    if (cpu.length !== n + 1) throw new Error(`${cpu.length - 1} of ${n} outcomes were kept`);
    // The watcher has seen the last outcome (a watcher that reads the store again may still be reading).
    await new Promise((done) => setTimeout(done, 100));
    return { cpu, wall, learned: auto.learned.value.categories.math?.['single:w1']?.tries ?? 0 };
  } finally {
    ledger.close?.();
    benchStore.close();
    outcomeStore.close();
    await provider.close();
  }
}

/** Per item, items `from`..`to` (1-based, inclusive), from the clock readings (reading 0 is the start). */
const perItem = (clock: number[], from: number, to: number) =>
  (clock[to]! - clock[from - 1]!) / (to - from + 1);

export const benchmarks: Benchmark[] = [
  {
    id: 'bench-linear',
    title:
      'Bench: cost per item of items 901–1,000 ÷ items 1–100 of a 1,000-item bench (one strategy, What Baton learned watching)',
    async run() {
      await benchOf(WARM_UP);
      const { cpu, wall, learned } = await benchOf(ITEMS);
      if (learned !== ITEMS) throw new Error(`auto mode learned ${learned} of ${ITEMS} outcomes`);
      const first = perItem(cpu, 1, SLICE);
      const last = perItem(cpu, ITEMS - SLICE + 1, ITEMS);
      const wallFirst = perItem(wall, 1, SLICE);
      const wallLast = perItem(wall, ITEMS - SLICE + 1, ITEMS);
      const hundreds = Array.from({ length: ITEMS / SLICE }, (_, h) =>
        round(perItem(cpu, h * SLICE + 1, (h + 1) * SLICE)),
      );
      return {
        value: round(last / first),
        goal: 1.2,
        unit: 'ratio',
        better: 'lower',
        notes:
          `CPU ms per item ${round(first)} (items 1–100) vs ${round(last)} (901–1,000); by hundreds ${hundreds.join(', ')}; ` +
          `wall ms per item ${round(wallFirst)} vs ${round(wallLast)} (ratio ${round(wallLast / wallFirst)}); ` +
          `the app's bench (runBench, bench store, outcomes, auto mode's watcher, egress and ledger) in Node over ` +
          `fake-indexeddb and HTTP to the test provider, concurrency 2, after a ${WARM_UP}-item warm-up bench; ` +
          'not in a browser: 1,000 items there would take most of the bench run, and nothing on this path draws',
      };
    },
  },
];
