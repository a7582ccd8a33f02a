import type { DirectChoice, RunView } from '../app/runs/run-model.ts';
import type { ThreadState } from '../app/threads/thread-core.ts';
import { singleWorkerOf } from '../learning/outcome.ts';
import { answersAlone, labelOf } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';

/** A worker as Direct mode offers it: by the user's label, never its id. */
export interface DirectOption {
  id: string;
  label: string;
}

/** The workers of a pool Direct mode can talk to: those turned on that answer questions. */
export function directOptions(pool: readonly WorkerSpec[]): DirectOption[] {
  return pool.filter((w) => w.enabled && answersAlone(w.id)).map((w) => ({ id: w.id, label: labelOf(w) }));
}

/**
 * Direct mode's choice: the one worker the question goes to (no planning), and whether another worker may
 * answer when it cannot (off unless the user ticks it). Used by the Ask box and a Direct thread's follow-up.
 */
export function DirectPicker({
  workers,
  value,
  onChange,
  idPrefix,
}: {
  workers: readonly DirectOption[];
  value: DirectChoice | undefined;
  onChange: (choice: DirectChoice) => void;
  /** Tells the ids of two pickers on one page apart. */
  idPrefix: string;
}) {
  const failover = value?.failover === true;
  const chosen = value && workers.some((w) => w.id === value.worker) ? value.worker : '';
  return (
    <span class="direct-picker" data-testid="direct-picker">
      <label for={`${idPrefix}-worker`}>Talk to</label>{' '}
      <select
        id={`${idPrefix}-worker`}
        value={chosen}
        onChange={(e) => onChange({ worker: e.currentTarget.value, ...(failover ? { failover } : {}) })}
        data-testid="direct-worker"
      >
        {chosen === '' && (
          <option value="" disabled>
            Choose a worker
          </option>
        )}
        {workers.map((w) => (
          <option key={w.id} value={w.id}>
            {w.label}
          </option>
        ))}
      </select>{' '}
      <label style={{ fontWeight: 400 }}>
        <input
          type="checkbox"
          checked={failover}
          disabled={chosen === ''}
          onChange={(e) =>
            onChange({ worker: chosen, ...(e.currentTarget.checked ? { failover: true } : {}) })
          }
          data-testid="direct-failover"
        />{' '}
        Another worker may answer if it cannot
      </label>
    </span>
  );
}

/**
 * How a turn opened from History was asked, for its follow-ups: a Direct turn goes on to its worker, an auto
 * mode pick in auto mode, any other in its mode.
 */
export function askedBefore(view: RunView, review: boolean): NonNullable<ThreadState['asked']> {
  const worker = view.chosenBy?.by === 'user' ? singleWorkerOf(view.chosenBy.strategy) : undefined;
  if (worker !== undefined) return { mode: 'direct', review: false, direct: { worker } };
  return { mode: view.chosenBy?.by === 'auto' ? 'auto' : view.mode, review };
}

/** Above a Direct thread's follow-up box: the worker the next message goes to. */
export function DirectFollowUp({
  pool,
  value,
  onChange,
}: {
  pool: readonly WorkerSpec[];
  value: DirectChoice | undefined;
  onChange: (choice: DirectChoice) => void;
}) {
  return (
    <div class="row small">
      <DirectPicker
        idPrefix="follow-up-direct"
        workers={directOptions(pool)}
        value={value}
        onChange={onChange}
      />
    </div>
  );
}
