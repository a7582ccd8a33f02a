import type { PassageLibrary } from '../../attachments/passage-store.ts';
import type { Ledger } from '../../egress/ledger.ts';
import type { AnswerLength } from '../../executor/estimate.ts';
import type { TurnHistory } from '../../executor/turn-history.ts';
import type { MemoryExample } from '../../learning/memory.ts';
import type { RunHistoryStore } from '../../records/run-store.ts';
import type { ThreadLink } from '../../records/runs-db.ts';
import type { Plan, PlanLimits, PlanMode, PlanTools } from '../../shared/plan/index.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import type { PlanPrefs } from '../prefs.ts';
import type { SendingServices } from '../services.ts';
import type { RunTools } from '../tools.ts';

/** What the runs need from the rest of the app; tests pass their own (fake-indexeddb, a scripted conductor). */
export interface RunServices extends SendingServices {
  runStore(): Promise<RunHistoryStore>;
  ledger(): Promise<Ledger>;
  /** Attached files' passages (src/app/services.ts): the steps and the review read the same indexes. */
  passages?: PassageLibrary;
  /** Past this many tokens a file the plan did not choose for goes as passages (null: always whole). */
  wholeFileTokens?(): number | null;
  /** Resolves once the vault can give `pool`'s keys (it may ask the user), false when the user declined. */
  ensureUnlocked(pool: readonly WorkerSpec[], purpose: string): Promise<boolean>;
  /** The user's planning limits now. */
  planPrefs(): PlanPrefs;
  /** US dollars one run may spend now (Settings → Spending); null or absent: no limit. */
  spendLimitUsd?(): number | null;
  /** Called after a run ends, an import or a delete: History's list, if shown, is read again. */
  historyChanged(): Promise<void>;
  /**
   * Past good workflows for the question that `pool` can run (workflow memory, src/app/outcomes.ts): shown
   * to the on-device conductor only. Absent: no memory.
   */
  memoryExamples?(
    question: string,
    pool: readonly WorkerSpec[],
    options: { maxSteps: number; allowSelf: boolean },
  ): Promise<MemoryExample[]>;
  /**
   * Auto mode's pick for a question over the enabled pool (src/app/auto-mode.ts): 'conductor', 'router' or
   * `single:<workerId>`, with its one-line reason. Absent: auto mode is not offered.
   */
  chooseStrategy?(
    question: string,
    pool: readonly WorkerSpec[],
    keyless: ReadonlySet<string>,
  ): Promise<{ strategy: string; reason: string }>;
  /** Whether the user marked a run's answer bad (a follow-up then does not stick to its worker). */
  markedBad?(runId: string): boolean;
  /** A thread's earlier turns before a turn at `link` (src/app/turn-context.ts). Absent: no threads. */
  turnHistory?(link: ThreadLink): Promise<TurnHistory | undefined>;
  /** The instructions of the thread of a turn at `link`, as stored (a resume, a planned turn started later). */
  threadInstructions?(link: ThreadLink): Promise<string | undefined>;
  /** The tools offered to the conductor and a step's grant made callable (src/app/tools.ts). Absent: none. */
  tools?: RunTools;
}

/** A plan waiting for the user's review, with the pool and the limits it was written for. */
export interface PendingReview {
  plan: Plan;
  pool: WorkerSpec[];
  limits: PlanLimits;
  /** Ids of the pool's workers with no key saved (their provider needs one): the review says so per step. */
  keyless?: ReadonlySet<string>;
  /** Planned with Plan only: nothing has been sent, and running it asks for the keys only then. */
  planOnly?: boolean;
  /** Each model's past answer lengths, for the price of the plan as the user edits it. */
  answerLengths?: ReadonlyMap<string, AnswerLength>;
  /** The tools offered now and the workers that call tools: the review refuses a grant as planning does. */
  tools?: PlanTools;
}

/** A plan to review: the pool and mode it was written for, and whether it came from Plan only. */
export interface ReviewInput {
  plan: Plan;
  pool: WorkerSpec[];
  mode: PlanMode;
  planOnly: boolean;
  /** Each model's past answer lengths, when already read. */
  lengths?: ReadonlyMap<string, AnswerLength>;
}
