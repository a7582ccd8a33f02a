import type { StoredRunStatus } from '../records/runs-db.ts';

/**
 * A run's status in words, as History lists it, a thread shows an earlier turn without an answer, and the
 * Markdown export writes it: a run the user stopped is "stopped" wherever it is shown (the run view says
 * "Stopped").
 */
const STATUS_TEXT: Record<StoredRunStatus, string> = {
  running: 'running',
  done: 'done',
  partial: 'done, some steps failed',
  failed: 'failed',
  cancelled: 'stopped',
  planned: 'plan not run yet',
  'planning-failed': 'planning failed',
};

/** What History says of a run's status, in words. */
export function statusText(status: StoredRunStatus): string {
  return STATUS_TEXT[status];
}
