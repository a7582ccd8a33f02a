// `npm run bench [-- --only id1,id2] [-- --json FILE] [-- --list]`: runs every bench/*.bench.ts module.
// Goals missed are printed, not failed (exit 0); a benchmark that throws makes the exit code 1.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { check, discover, verdict } from './harness.ts';
import type { Benchmark, BenchResult } from './types.ts';

const { values } = parseArgs({
  options: { only: { type: 'string' }, json: { type: 'string' }, list: { type: 'boolean', default: false } },
});

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

let benchmarks = await discover();
if (values.list) {
  for (const b of benchmarks) console.log(`${b.id}\t${b.title}`);
  process.exit(0);
}
if (values.only) {
  const wanted = values.only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((id) => !benchmarks.some((b) => b.id === id));
  if (unknown.length) {
    console.error(
      `unknown benchmark id(s): ${unknown.join(', ')} (known: ${benchmarks.map((b) => b.id).join(', ')})`,
    );
    process.exit(2);
  }
  benchmarks = benchmarks.filter((b) => wanted.includes(b.id));
}

const results: { bench: Benchmark; result?: BenchResult; error?: string }[] = [];
for (const bench of benchmarks) {
  process.stderr.write(`running ${bench.id} ... `);
  const start = performance.now();
  try {
    const result = await bench.run();
    check(bench.id, result);
    results.push({ bench, result });
    process.stderr.write(`${((performance.now() - start) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    results.push({ bench, error: message });
    process.stderr.write(`error: ${message}\n`);
  }
}

const rows = [['id', 'title', 'value', 'unit', 'goal', 'better', 'result', 'notes']];
for (const { bench, result, error } of results) {
  rows.push(
    result
      ? [
          bench.id,
          bench.title,
          String(result.value),
          result.unit,
          `${result.better === 'lower' ? '<=' : '>='} ${result.goal}`,
          result.better,
          verdict(result) === 'pass' ? 'pass' : 'FAIL (goal missed)',
          result.notes ?? '',
        ]
      : [bench.id, bench.title, '—', '', '', '', 'ERROR', error ?? ''],
  );
}
console.log(table(rows));
const missed = results.filter((r) => r.result && verdict(r.result) === 'fail').map((r) => r.bench.id);
const errored = results.filter((r) => r.error).map((r) => r.bench.id);
console.log(
  `\n${results.length} benchmark(s): ${results.length - missed.length - errored.length} met their goal` +
    (missed.length ? `, goal missed: ${missed.join(', ')}` : '') +
    (errored.length ? `, errors: ${errored.join(', ')}` : ''),
);

if (values.json) {
  const out: Record<string, { value: number; goal: number; unit: string; better: 'lower' | 'higher' }> = {};
  for (const { bench, result } of results) {
    if (result)
      out[bench.id] = { value: result.value, goal: result.goal, unit: result.unit, better: result.better };
  }
  await writeFile(values.json, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${values.json}`);
}
process.exit(errored.length ? 1 : 0);
