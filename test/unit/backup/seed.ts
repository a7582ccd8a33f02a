/**
 * A profile worth backing up, written through Baton's own stores: threads of runs with steps and files,
 * what Baton learned, the pool, the MCP servers, a bench run and settings. Every text in it is distinctive, so a search
 * of the server's disk for it finds it if any of it was stored in the clear.
 */
import { openDB } from 'idb';
import { BenchStore } from '../../../src/evaluation/bench-store.ts';
import { openOutcomeStore } from '../../../src/records/outcome-store.ts';
import { openPoolStore } from '../../../src/records/pool-store.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { openThreadStore } from '../../../src/records/thread-store.ts';
import { openToolStore } from '../../../src/tools/store.ts';
import { csvAttachment, pngAttachment, runWithFiles } from '../../fixtures/attachments.ts';
import { workerSpec } from '../../fixtures/worker-spec.ts';

export interface ProfileNames {
  runs: string;
  pool: string;
  learning: string;
  bench: string;
  tools: string;
}

export function namesFor(profile: string): ProfileNames {
  return {
    runs: `${profile}-runs`,
    pool: `${profile}-pool`,
    learning: `${profile}-learning`,
    bench: `${profile}-bench`,
    tools: `${profile}-tools`,
  };
}

/** The plaintexts that must never reach the server's disk. */
export function secretsOf(tag: string) {
  return {
    question: `Which lighthouse keeper ${tag} wrote the violet almanac?`,
    answer: `The almanac of ${tag} was written by Oriel Quenby in 1893.`,
    fileName: `almanac-notes-${tag}.csv`,
    fileText: `keeper,year\nQuenby-${tag},1893\n`,
    stepAnswer: `Step answer mentioning saffron ${tag}`,
    threadTitle: `Lighthouse thread ${tag}`,
  };
}

export async function seedProfile(names: ProfileNames, tag: string, at = 1_000): Promise<void> {
  const s = secretsOf(tag);
  const runs = await openRunStore(names.runs);
  const threads = await openThreadStore(names.runs);
  const csv = await csvAttachment(s.fileName, s.fileText);
  const png = await pngAttachment(`chart-${tag}.png`);
  await runs.putAttachments([csv, png]);
  const first = runWithFiles(`${tag}-r1`, [csv, png], {
    question: s.question,
    answer: s.answer,
    threadId: `${tag}-t1`,
    turn: 0,
    createdAt: at,
    updatedAt: at,
  });
  const second = runWithFiles(`${tag}-r2`, [], {
    question: `A follow-up of ${tag}`,
    answer: `Follow-up answer ${tag}`,
    threadId: `${tag}-t1`,
    turn: 1,
    parentRunId: first.id,
    createdAt: at + 1,
    updatedAt: at + 1,
  });
  await runs.putRun(first);
  await runs.putStep({
    runId: first.id,
    index: 0,
    worker: 'w1',
    task: `Find the keeper ${tag}`,
    sees: [],
    depth: 0,
    state: 'done',
    text: s.stepAnswer,
  } as never);
  await runs.putRun(second);
  await threads.putThread({
    id: `${tag}-t1`,
    schema: 1,
    title: s.threadTitle,
    createdAt: at,
    updatedAt: at + 1,
  });
  runs.close();
  threads.close();

  const outcomes = await openOutcomeStore(names.learning);
  await outcomes.put({
    runId: first.id,
    question: s.question,
    strategy: 'conductor',
    workerIds: ['w1'],
    good: true,
    at,
  } as never);
  outcomes.close();
  const pool = await openPoolStore(names.pool);
  await pool.save(workerSpec({ id: `w-${tag}`, baseURL: 'http://127.0.0.1:9/v1', model: 'm' }));
  pool.close();
  const tools = await openToolStore(names.tools);
  await tools.save({ id: `tracker-${tag}`, url: 'http://127.0.0.1:9/mcp', tools: [], offered: [] });
  tools.close();
  const bench = await BenchStore.open(names.bench);
  await bench.putRun({
    id: `${tag}-bench`,
    name: `Bench ${tag}`,
    createdAt: at,
    updatedAt: at,
    tasks: [],
    strategies: [],
    pool: [],
    concurrency: 1,
    state: 'done',
  });
  bench.close();
}

/** Every record of every store of the profile's databases, as IndexedDB gives them back. */
export async function dumpProfile(names: ProfileNames): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const name of Object.values(names)) {
    const db = await openDB(name);
    for (const store of db.objectStoreNames) out[`${name}/${store}`] = await db.getAll(store);
    db.close();
  }
  return out;
}

/** A value with its Blobs and byte arrays read out, so two dumps compare byte for byte. */
export async function plain(value: unknown): Promise<unknown> {
  if (value instanceof Blob)
    return { blob: value.type, bytes: [...new Uint8Array(await value.arrayBuffer())] };
  if (value instanceof Uint8Array) return { u8: [...value] };
  if (Array.isArray(value)) return Promise.all(value.map(plain));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = await plain(child);
    return out;
  }
  return value;
}
