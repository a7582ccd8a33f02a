import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { estimateRun } from '../../../src/app/runs/run-estimate.ts';
import { turnHistory } from '../../../src/app/turn-context.ts';
import { estimatePlan } from '../../../src/executor/estimate.ts';
import { fitHistory } from '../../../src/executor/turn-history.ts';
import { rankTurns } from '../../../src/executor/turn-relevance.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { openThreadStore } from '../../../src/records/thread-store.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

const TOPICS = [
  ['How do I make tiramisu?', 'Layer mascarpone cream and coffee-soaked ladyfingers, then chill overnight.'],
  ['What is the capital of Peru?', 'Lima.'],
  ['Who wrote Dune?', 'Frank Herbert.'],
  ['How far is the Moon?', 'About 384,000 km.'],
] as const;

/** A thread of four turns, the oldest about tiramisu; returns the last turn's run id. */
async function writeThread(name: string): Promise<string> {
  const runs = await openRunStore(name);
  let parent: string | undefined;
  for (const [turn, [question, answer]] of TOPICS.entries()) {
    const id = `r${turn}`;
    const link = { threadId: 'th', turn, ...(parent ? { parentRunId: parent } : {}) };
    await runs.putRun(goodRun(id, 1000 + turn, { ...link, question, answer }));
    await runs.putStep(goodStep(id));
    parent = id;
  }
  runs.close();
  return parent as string;
}

describe('turnHistory', () => {
  it("ranks a follow-up's earlier turns for its question, so its estimate counts the turns the run will send", async () => {
    const name = 'baton-turn-context-test';
    const last = await writeThread(name);
    const threads = await openThreadStore(name);
    const question = 'And how long should the tiramisu chill?';
    // Room for the newest turn and one more: the run sends the tiramisu turn, not the one before the newest.
    const prefs = () => ({ tokens: 60 });
    const history = await turnHistory(threads, last, prefs, question);
    threads.close();
    expect(history).toBeDefined();
    if (!history) return;
    const worker = workerSpec({
      id: 'w1',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'model-w1',
      price: { inputPerM: 1, outputPerM: 1 },
    });
    const steps = [{ worker: 'w1', task: 'Answer.', sees: [] }];
    const estimate = estimateRun({
      question,
      steps,
      pool: [worker],
      turn: { link: { threadId: 'th', turn: 4 }, history },
    });
    // What the executor sends (step-dispatch.ts): the turns fitted to the budget in the ranking's order.
    const sent = fitHistory(history.turns, 60, undefined, await rankTurns(history.turns, question));
    expect(sent.messages.map((m) => m.content)).toContain(TOPICS[0][1]);
    const asSent = estimatePlan({
      question,
      steps,
      pool: [worker],
      history: { ...history, budgetFor: () => 60, ranking: await rankTurns(history.turns, question) },
    });
    const newestFirst = estimatePlan({
      question,
      steps,
      pool: [worker],
      history: { turns: history.turns, budgetFor: () => 60 },
    });
    expect(asSent.inputTokens).not.toBe(newestFirst.inputTokens);
    expect(estimate.inputTokens).toBe(asSent.inputTokens);
  });
});
