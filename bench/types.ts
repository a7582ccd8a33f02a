/** One measured figure. `bench/run.ts` prints it and writes it to `--json FILE`. */
export interface BenchResult {
  value: number;
  /** The target: met when `value <= goal` (better 'lower') or `value >= goal` (better 'higher'). */
  goal: number;
  unit: string;
  better: 'lower' | 'higher';
  /** Context for a reader: spread (p90), sample size, the figures a ratio was made from. */
  notes?: string;
}

/**
 * A benchmark: a module `bench/<name>.bench.ts` exports `benchmarks: Benchmark[]`.
 * Benchmarks measure side by side in one run and report ratios where they compare; they never fail a test.
 */
export interface Benchmark {
  /** Stable id, the key in the JSON output (kebab-case). */
  id: string;
  title: string;
  run(): Promise<BenchResult>;
}
