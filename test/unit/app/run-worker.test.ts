import { describe, expect, it, onTestFinished } from 'vitest';
import { createPool } from '../../../src/app/pool.ts';
import { withRunStep } from '../../../src/app/run-worker.ts';
import { keylessWorkers } from '../../../src/app/services.ts';
import { codeRunnerWorker } from '../../../src/executor/code-runner-worker.ts';
import { rankSubstitutes } from '../../../src/executor/failover.ts';
import { RunStepTransport } from '../../../src/executor/run-step.ts';
import { workerIdProblem } from '../../../src/pool/worker-rules.ts';
import { errorFromStatus } from '../../../src/providers/errors.ts';
import type { ChatTransport } from '../../../src/providers/transport.ts';
import type { PoolStore } from '../../../src/records/pool-store.ts';
import { RUN_WORKER } from '../../../src/shared/worker-ids.ts';
import type { WorkerSpec } from '../../../src/shared/worker-spec.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const cloud: WorkerSpec = workerSpec({
  id: 'w1',
  label: 'GPT',
  strengths: 'coding',
  providerId: 'openai',
  baseURL: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
});

/** A localStorage of this test's own (the pool keeps its choices there). */
function withStorage(): void {
  const stored = new Map<string, string>();
  const global = globalThis as { localStorage?: Pick<Storage, 'getItem' | 'setItem'> };
  const original = global.localStorage;
  global.localStorage = {
    getItem: (key) => stored.get(key) ?? null,
    setItem: (key, value) => void stored.set(key, value),
  };
  onTestFinished(() => {
    global.localStorage = original;
  });
}

const emptyStore = { list: async () => [] } as unknown as PoolStore;

describe('the run worker in the pool', () => {
  it('is offered by default, and stays off across visits once turned off', () => {
    withStorage();
    const pool = createPool({ poolStore: async () => emptyStore });
    expect(pool.runPool.value.map((w) => w.id)).toEqual([RUN_WORKER]);
    pool.setIncludeRun(false);
    expect(pool.runPool.value).toEqual([]);
    const next = createPool({ poolStore: async () => emptyStore });
    expect(next.includeRun.value).toBe(false);
    expect(next.runPool.value).toEqual([]);
  });

  it('is a tool inside steps only when the user turns that on too, and the choice is kept', () => {
    withStorage();
    const pool = createPool({ poolStore: async () => emptyStore });
    expect(pool.includeRun.value).toBe(true);
    expect(pool.includeRunTool.value).toBe(false);
    pool.setIncludeRunTool(true);
    expect(createPool({ poolStore: async () => emptyStore }).includeRunTool.value).toBe(true);
  });

  it('reserves its id, needs no key, and has no substitute nor stands in for one', async () => {
    expect(workerIdProblem('Run')).toMatch(/reserved for the code sandbox/);
    const egress = { hasKey: async () => false };
    const keyless = await keylessWorkers([codeRunnerWorker(), cloud], {
      egress: async () => egress as never,
    });
    expect([...keyless]).toEqual(['w1']);
    const cause = errorFromStatus(503, 'down');
    const pool = [codeRunnerWorker(), cloud];
    expect(
      rankSubstitutes({ failed: codeRunnerWorker(), cause, pool, failedInRun: new Set([RUN_WORKER]) }),
    ).toEqual({
      candidates: [],
      excluded: ['a step of the code runner has no substitute'],
    });
    const other = { ...cloud, id: 'w2' };
    const ranking = rankSubstitutes({
      failed: other,
      cause,
      pool: [...pool, other],
      failedInRun: new Set(['w2']),
    });
    expect(ranking.candidates.map((w) => w.id)).toEqual(['w1']);
  });

  it('gets the sandbox transport, and every other worker keeps its own', () => {
    const own: ChatTransport = { stream: async function* () {} };
    const pick = withRunStep(
      () => own,
      async () => ({ execute: async () => ({}) as never }),
    );
    expect(pick(codeRunnerWorker())).toBeInstanceOf(RunStepTransport);
    expect(pick(cloud)).toBe(own);
  });
});
