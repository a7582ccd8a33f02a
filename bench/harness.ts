// The bench runner's pieces, apart from the CLI so they can be imported without running anything.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Benchmark, BenchResult } from './types.ts';

/** Every benchmark of every `*.bench.ts` module in this folder, in file then declaration order. */
export async function discover(dir = import.meta.dirname): Promise<Benchmark[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
  const all: Benchmark[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { benchmarks?: Benchmark[] };
    if (!Array.isArray(mod.benchmarks))
      throw new Error(`${file} does not export \`benchmarks: Benchmark[]\``);
    all.push(...mod.benchmarks);
  }
  const seen = new Set<string>();
  for (const b of all) {
    if (seen.has(b.id)) throw new Error(`two benchmarks have the id ${b.id}`);
    seen.add(b.id);
  }
  return all;
}

export function verdict(r: BenchResult): 'pass' | 'fail' {
  return (r.better === 'lower' ? r.value <= r.goal : r.value >= r.goal) ? 'pass' : 'fail';
}

export function check(id: string, r: BenchResult): void {
  if (!Number.isFinite(r.value)) throw new Error(`${id}: value is not a finite number`);
  if (typeof r.goal !== 'number' || !Number.isFinite(r.goal)) throw new Error(`${id}: no numeric goal`);
  if (r.better !== 'lower' && r.better !== 'higher') throw new Error(`${id}: better must be lower or higher`);
}
