import type { z } from 'zod';
import { describeIssues } from '../taskset.ts';

/** Checks one record of a benchmark file against its schema; the error names the fields at fault. */
export function checkRecord<T>(schema: z.ZodType<T>, record: unknown): T | { error: string } {
  const parsed = schema.safeParse(record);
  return parsed.success ? parsed.data : { error: describeIssues(parsed.error) };
}

export const failed = (value: unknown): value is { error: string } =>
  typeof value === 'object' && value !== null && 'error' in value;
