import type { Attachment } from '../../attachments/types.ts';
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import {
  missingWorkers,
  type Planner,
  READING_NEEDS_DOCUMENT,
  type Strategy,
} from '../../evaluation/strategies.ts';
import type { Task } from '../../evaluation/taskset.ts';
import type { ChatTransport } from '../../providers/transport.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';

/** What a bench runs with: the app's pool, its transports, and the conductor when one is loaded. */
export interface BenchEnvironment {
  pool: readonly WorkerSpec[];
  transport: ChatTransport | ((worker: WorkerSpec) => ChatTransport);
  planner?: Planner;
}

/** The "New bench" form as the user filled it in (numbers as typed). */
export interface BenchForm {
  name: string;
  tasks: readonly Task[];
  strategies: readonly Strategy[];
  /** The document attached for the reading strategies, if any. */
  document?: Attachment;
  concurrency: string;
  spendCap: string;
}

export function defaultBenchName(): string {
  return `Bench ${new Date().toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })}`;
}

/** The bench record the form describes, or what is wrong with the form (the first problem, in form order). */
export function benchFromForm(
  form: BenchForm,
  env: Pick<BenchEnvironment, 'pool' | 'planner'>,
  now: number = Date.now(),
): { ok: true; record: BenchRunRecord } | { ok: false; problem: string } {
  const problem = (text: string) => ({ ok: false as const, problem: text });
  if (form.tasks.length === 0) return problem('Choose a task set with at least one task.');
  if (form.strategies.length === 0) return problem('Add at least one strategy.');
  const missing = [...new Set(form.strategies.flatMap((s) => missingWorkers(s.config, env.pool)))];
  if (missing.length) return problem(`These workers are not in the pool: ${missing.join(', ')}.`);
  if (
    !env.planner &&
    form.strategies.some((s) => s.config.kind === 'router' || s.config.kind === 'conductor')
  )
    return problem('The router and conductor strategies need the on-device conductor.');
  if (!form.document && form.strategies.some((s) => s.config.kind === 'reading'))
    return problem(READING_NEEDS_DOCUMENT);
  const limit = Math.round(Number(form.concurrency));
  if (!(limit >= 1 && limit <= 16)) return problem('Concurrency must be a whole number from 1 to 16.');
  const cap = form.spendCap.trim() === '' ? undefined : Number(form.spendCap);
  if (cap !== undefined && !(cap >= 0))
    return problem('The spend cap must be a number of dollars (0 or more), or empty.');
  return {
    ok: true,
    record: {
      id: crypto.randomUUID(),
      name: form.name.trim() || defaultBenchName(),
      createdAt: now,
      updatedAt: now,
      tasks: [...form.tasks],
      strategies: [...form.strategies],
      // The whole pool, as a conductor would see it; worker specs carry no keys (egress attaches them by origin).
      pool: [...env.pool],
      ...(form.document ? { document: form.document } : {}),
      concurrency: limit,
      ...(cap !== undefined ? { spendCapUsd: cap } : {}),
      state: 'running',
    },
  };
}
