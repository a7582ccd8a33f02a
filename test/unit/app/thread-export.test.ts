import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { inertProblems } from '../../../src/app/inert-markdown.ts';
import {
  exportThreadJson,
  exportThreadMarkdown,
  IMPORT_CHUNK_RUNS,
  parseThreadImport,
  type ThreadRun,
} from '../../../src/app/thread-export.ts';
import type { RunRecord } from '../../../src/records/runs-db.ts';
import type { ThreadRecord } from '../../../src/records/thread-store.ts';
import { HOSTILE_ANSWER } from '../../fixtures/hostile-answer.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';

const thread: ThreadRecord = {
  id: 'th',
  schema: 1,
  title: 'First question',
  createdAt: 1,
  updatedAt: 5,
  leafRunId: 'r1',
};

function turn(id: string, n: number, parent?: string, overrides: Partial<RunRecord> = {}): ThreadRun {
  return {
    run: goodRun(id, 10 + n, {
      threadId: 'th',
      turn: n,
      ...(parent ? { parentRunId: parent } : {}),
      ...overrides,
    }),
    steps: [goodStep(id)],
  };
}

describe('thread export and import', () => {
  it('round-trips every run of every branch, with the links between turns', async () => {
    const runs = [turn('r0', 0), turn('r1', 1, 'r0'), turn('b1', 1, 'r0')];
    const parsed = await parseThreadImport(exportThreadJson(thread, runs));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.data.thread).toMatchObject({ id: 'th', title: 'First question', leafRunId: 'r1' });
    expect(parsed.data.runs.map((r) => [r.run.id, r.run.turn, r.run.parentRunId, r.run.threadId])).toEqual([
      ['r0', 0, undefined, 'th'],
      ['r1', 1, 'r0', 'th'],
      ['b1', 1, 'r0', 'th'],
    ]);
    expect(parsed.data.runs[1]?.steps[0]?.runId).toBe('r1');
  });

  it("carries the thread's instructions out and back in, and reads a file written before there were any", async () => {
    const instructions = 'Answer as a pirate would.\nNever more than three sentences.';
    const parsed = await parseThreadImport(exportThreadJson({ ...thread, instructions }, [turn('r0', 0)]));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.data.thread.instructions).toBe(instructions);
    const older = await parseThreadImport(exportThreadJson(thread, [turn('r0', 0)]));
    if (!older.ok) throw new Error(older.error);
    expect(older.data.thread).not.toHaveProperty('instructions');
  });

  it('refuses a thread of an unknown schema version, naming the version', async () => {
    const file = JSON.parse(exportThreadJson(thread, [turn('r0', 0)])) as Record<string, unknown>;
    const result = await parseThreadImport(JSON.stringify({ ...file, version: 7 }));
    expect(result).toEqual({
      ok: false,
      error: 'This thread was exported with schema version 7; this Baton reads version 1 only.',
    });
    const missing = await parseThreadImport(JSON.stringify({ ...file, version: undefined }));
    expect(missing.ok ? '' : missing.error).toMatch(/schema version undefined/);
  });

  it('refuses a thread whose turns do not hold together, and a damaged run, saying which', async () => {
    const orphan = await parseThreadImport(exportThreadJson(thread, [turn('r0', 0), turn('r2', 2, 'r0')]));
    expect(orphan.ok ? '' : orphan.error).toMatch(/Turn 3 \(run r2\) does not follow a turn of this file/);
    const damaged = await parseThreadImport(
      exportThreadJson(thread, [turn('r0', 0, undefined, { question: 42 as unknown as string })]),
    );
    expect(damaged.ok ? '' : damaged.error).toMatch(/^Run 1 of the thread: .*question/);
    expect((await parseThreadImport('{')).ok).toBe(false);
    const run = await parseThreadImport(JSON.stringify({ format: 'baton-run', version: 1 }));
    expect(run.ok ? '' : run.error).toMatch(/not a Baton thread export/);
  });

  it('writes the branch as an inert Markdown report, turn after turn', async () => {
    const hostile = {
      ...thread,
      title: '<img src=x onerror=alert(1)> [x](javascript:alert(1))',
      instructions: `Be brief.\n${HOSTILE_ANSWER}`,
    };
    const branch = [
      turn('r0', 0, undefined, { question: HOSTILE_ANSWER, answer: HOSTILE_ANSWER }),
      turn('r1', 1, 'r0', { question: 'Shorter?', answer: 'Yes, **shorter**.' }),
    ];
    const md = exportThreadMarkdown(hostile, branch);
    expect(inertProblems(md)).toEqual([]);
    const html = await marked.parse(md, { gfm: true });
    expect(html).not.toMatch(/<(script|img|iframe|svg|style)\b/i);
    expect(html).not.toMatch(/(href|src)="\s*(javascript|data):/i);
    expect(md.indexOf('Turn 1 of 2')).toBeLessThan(md.indexOf('Turn 2 of 2'));
    expect(md.indexOf('Instructions for every worker:')).toBeLessThan(md.indexOf('Turn 1 of 2'));
    expect(md).toContain('Be brief.');
    expect(html).toContain('<strong>shorter</strong>');
  });

  it('gives the page a turn between chunks of runs while it reads a long thread', async () => {
    const runs = [turn('t0', 0)];
    for (let n = 1; n < 1000; n++) runs.push(turn(`t${n}`, n, `t${n - 1}`));
    const text = exportThreadJson(thread, runs);
    // A task queued before the import, and one after each it lets run: the page's input and drawing.
    let ticks = 0;
    let reading = true;
    const tick = () => {
      if (!reading) return;
      ticks++;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const parsed = await parseThreadImport(text);
    reading = false;
    expect(parsed.ok).toBe(true);
    expect(ticks).toBeGreaterThan(0);
    // 1,000 runs in chunks: the page gets a turn between every two.
    expect(ticks).toBeGreaterThanOrEqual(1000 / IMPORT_CHUNK_RUNS - 1);
  });
});
