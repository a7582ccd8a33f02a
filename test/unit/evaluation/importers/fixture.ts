import { readFileSync } from 'node:fs';

/** A sample file from test/fixtures/benchmarks/ (written for Baton in each benchmark's published format). */
export const fixture = (name: string): string =>
  readFileSync(new URL(`../../../fixtures/benchmarks/${name}`, import.meta.url), 'utf8');
