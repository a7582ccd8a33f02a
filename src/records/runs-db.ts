/**
 * The runs database's schema: its name and version, the stores it has and the records they hold. The
 * stores (run-store.ts, thread-store.ts, attachment-store.ts) and the zod checks of what is read back
 * (record-schema.ts) build on it; nothing above src/records/ opens the database itself.
 */
import type { DBSchema } from 'idb';
import type { Attachment } from '../attachments/types.ts';
import type { Plan } from '../shared/plan/index.ts';
import type { Estimator } from '../shared/token-estimate.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { RunStatus, RunTotals, StepStatus } from './run-types.ts';

/** What a run keeps of each of its files: enough to list it in History and to find its bytes. */
export interface AttachmentRef {
  id: string;
  name: string;
  kind: Attachment['kind'];
  mime: string;
  size: number;
}

/** The store's value: the attachment as read (its text, pages or image), without the name it had. */
export type StoredAttachment = Omit<Attachment, 'name'>;

export const RUNS_DB_NAME = 'baton-runs';
/**
 * 2 added `summaries`: what History lists, written with each run, so listing never reads whole runs.
 * 3 added threads (src/records/thread-store.ts): every run is a turn of one, and runs stored before are
 * one-turn threads; and `attachments` (files by content hash) with the runs' `attachmentIds` index.
 */
export const RUNS_DB_VERSION = 3;

/**
 * A stored run's status: the executor's, or one of a run that never reached the executor: `planned` (a
 * plan waiting for the user's review, or made with Plan only: nothing was sent) and `planning-failed` (the
 * conductor could not write a plan).
 */
export type StoredRunStatus = RunStatus | 'planned' | 'planning-failed';

/** One run as persisted. The pool is a snapshot of the workers' public settings (never a key). */
export interface RunRecord {
  id: string;
  question: string;
  /** 'conductor', 'router', a baseline name... */
  mode: string;
  pool: WorkerSpec[];
  /** The plan as far as it is known (steps added by `self` steps are in `steps`, not here). */
  plan: Plan;
  /** False while the plan is still being streamed in. */
  planComplete: boolean;
  includeQuestion: boolean;
  status: StoredRunStatus;
  createdAt: number;
  updatedAt: number;
  totals: RunTotals;
  answer?: string;
  error?: string;
  /** What failed, in the machinery's own words (an engine's message): shown behind Details. */
  errorDetails?: string[];
  /** A `planned` run made with Plan only: running it asks for the keys only then. */
  planOnly?: true;
  /** Set when auto mode chose how the question was answered: the strategy and its one-line reason. */
  chosenBy?: ChosenBy;
  /** What the conductor's plan is not as it first wrote it (repaired, or fallen back): said when reopened. */
  planNote?: StoredPlanNote;
  /** The thread (conversation) this run is a turn of; absent in records from before threads: its own id. */
  threadId?: string;
  /** Its place in its branch of the thread, from 0 (absent: 0). */
  turn?: number;
  /** The turn before it in its branch; absent for a thread's first turn. */
  parentRunId?: string;
  /** The user kept the key-shaped text of its question (`ThreadLink`). */
  keptKey?: true;
  /** The files attached to the question, by index (a step's `files`); their bytes are in `attachments`. */
  attachments?: AttachmentRef[];
  /** The content hashes of `attachments`, each once: indexed, so a file is deleted with its last run. */
  attachmentIds?: string[];
}

/** Where a run sits in its thread, and what of it later turns get. */
export interface ThreadLink {
  threadId: string;
  turn: number;
  parentRunId?: string;
  /**
   * The user chose to send the key-shaped text in its question (src/ui/KeyWarning.tsx): later turns get
   * the question as it is. Absent: key-shaped text in it goes to later turns as "[key removed]".
   */
  keptKey?: true;
}

/** A run's place in its thread; a run from before threads is the one turn of a thread with its own id. */
export function threadLinkOf(
  run: Pick<RunRecord, 'id' | 'threadId' | 'turn' | 'parentRunId' | 'keptKey'>,
): ThreadLink {
  const link: ThreadLink = { threadId: run.threadId ?? run.id, turn: run.turn ?? 0 };
  if (run.parentRunId !== undefined) link.parentRunId = run.parentRunId;
  if (run.keptKey) link.keptKey = true;
  return link;
}

/** The run view's note on a plan the conductor repaired or replaced: a sentence, and the validator's messages. */
export interface StoredPlanNote {
  text: string;
  details: string[];
}

export interface ChosenBy {
  /**
   * 'auto': auto mode chose; 'thread': a router-mode follow-up went back to the last turn's worker; 'user':
   * the user sent it to one worker in Direct mode.
   */
  by: 'auto' | 'thread' | 'user';
  /** 'conductor', 'router' or `single:<workerId>`. */
  strategy: string;
  reason: string;
}

export interface StepRecord extends StepStatus {
  runId: string;
}

/** What History shows and searches of a run; `answer` is the final answer (searched, not shown). */
export interface RunSummary {
  id: string;
  question: string;
  mode: string;
  status: StoredRunStatus;
  createdAt: number;
  updatedAt: number;
  steps: number;
  cost: number;
  /** Set when some of the run's requests went to a worker with no price: `cost` leaves them out. */
  unpriced?: true;
  /** Set when some of the run's tokens (so its cost) were estimated: a provider sent no usage. */
  estimated?: true;
  estimator?: Estimator;
  answer?: string;
  /** The worker of the plan's last step (the one that writes the final answer), when there is one. */
  finalWorker?: string;
  /** The run's thread and place in it (`threadLinkOf`): every summary row has them, readable or not. */
  threadId?: string;
  turn?: number;
  parentRunId?: string;
  keptKey?: true;
}

/** A stored run that could not be read, and why (shown to the user, never a crash). */
export interface SkippedRun {
  id: string;
  problem: string;
}

/**
 * A summary row as stored: a run whose record failed the schema when its summary was made keeps only its
 * id, time and `problem`, so History can say it was skipped without reading it again.
 */
export type SummaryRow =
  | RunSummary
  | {
      id: string;
      updatedAt: number;
      problem: string;
      threadId?: string;
      turn?: number;
      parentRunId?: string;
    };

export interface SummaryPage {
  summaries: RunSummary[];
  /** Rows of this page that could not be read. */
  skipped: SkippedRun[];
  /** The first row of the next page (pass it as `from`); undefined on the last page. */
  next?: { updatedAt: number; id: string };
}

/** Thrown by `getRun` for a stored run (or one of its steps) that fails the schema. */
export class DamagedRunError extends Error {
  override name = 'DamagedRunError';
  constructor(
    readonly runId: string,
    readonly problem: string,
  ) {
    super(`The stored run ${runId} could not be read (${problem}).`);
  }
}

export interface RunsDB extends DBSchema {
  runs: {
    key: string;
    value: RunRecord;
    indexes: { updatedAt: number; status: StoredRunStatus; attachmentIds: string };
  };
  steps: { key: [string, number]; value: StepRecord; indexes: { runId: string } };
  summaries: {
    key: string;
    value: SummaryRow;
    indexes: { updatedAt: [number, string]; problem: string; threadTurn: [string, number] };
  };
  threads: { key: string; value: unknown; indexes: { updatedAt: number } };
  attachments: { key: string; value: StoredAttachment };
}
