/**
 * The page's real services: the vault, the ledger, egress, the run store, the pool store and the outcome store. Each opens its
 * IndexedDB database on first use, so the first screen does not wait on them (and their code can be split
 * out). One set per call: the app state owns it (src/app/app-state.ts), and a test builds its own.
 */
import type { PassageLibrary } from '../attachments/passage-store.ts';
import type { ConductorBridge } from '../conductor/bridge.ts';
import type { Egress } from '../egress/egress.ts';
import type { Ledger } from '../egress/ledger.ts';
import type { BenchStore } from '../evaluation/bench-store.ts';
import type { PlannerCompareStore } from '../evaluation/compare-planners-store.ts';
import type { FailoverOptions } from '../executor/failover.ts';
import type { OutcomeStore } from '../learning/outcome.ts';
import { presetById } from '../providers/catalog.ts';
import type { ChatTransport } from '../providers/transport.ts';
import type { PoolStore } from '../records/pool-store.ts';
import type { RunHistoryStore } from '../records/run-store.ts';
import type { ThreadStore } from '../records/thread-store.ts';
import type { SandboxRunner } from '../sandbox/code-runner.ts';
import { LOCAL_WORKER, onDevice } from '../shared/worker-ids.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import type { ToolStore } from '../tools/store.ts';
import type { Vault } from '../vault/vault.ts';
import type { RunPrefs } from './prefs.ts';

export interface PageServices {
  vault(): Promise<Vault>;
  ledger(): Promise<Ledger>;
  egress(): Promise<Egress>;
  runStore(): Promise<RunHistoryStore>;
  /** Threads over the runs database (its own connection to it: src/records/thread-store.ts). */
  threadStore(): Promise<ThreadStore>;
  poolStore(): Promise<PoolStore>;
  /** What the user marked good or bad, and the bench scored (src/learning/): never sent anywhere. */
  outcomeStore(): Promise<OutcomeStore>;
  /** The bench's runs and results (opened when the Bench screen first opens). */
  benchStore(): Promise<BenchStore>;
  /** "Compare planners"' scores per model. */
  plannerCompareStore(): Promise<PlannerCompareStore>;
  /** The code sandbox `run` steps run in (one frame, and one Python interpreter, for the page). */
  codeSandbox?(): Promise<SandboxRunner>;
  /** The MCP servers the user added (Settings → Tools). Absent: no tools. */
  toolStore?(): Promise<ToolStore>;
  /** Attached files' passages and indexes, by content hash, for the page's life (and IndexedDB). */
  passages?: PassageLibrary;
}

/** Opens `open()` once, on the first call, and hands every caller the same promise. */
export function once<T>(open: () => Promise<T>): () => Promise<T> {
  let opened: Promise<T> | undefined;
  return () => {
    opened ??= open();
    return opened;
  };
}

export function pageServices(): PageServices {
  const vault = once(() => import('../vault/vault.ts').then((m) => m.openVault()));
  const ledger = once(() => import('../egress/ledger.ts').then((m) => m.openLedger()));
  const egress = once(() =>
    Promise.all([import('../egress/egress.ts'), import('../egress/fetch-thread.ts'), vault(), ledger()]).then(
      ([m, fetching, v, l]) => m.createEgress({ vault: v, ledger: l, fetchImpl: fetching.fetchThread() }),
    ),
  );
  const runStore = once(() => import('../records/run-store.ts').then((m) => m.openRunStore()));
  // After the run store: the first to open the database upgrades it, and the run store is opened first.
  const threadStore = once(() =>
    runStore().then(() => import('../records/thread-store.ts').then((m) => m.openThreadStore())),
  );
  const poolStore = once(() => import('../records/pool-store.ts').then((m) => m.openPoolStore()));
  const outcomeStore = once(() => import('../records/outcome-store.ts').then((m) => m.openOutcomeStore()));
  const toolStore = once(() => import('../tools/store.ts').then((m) => m.openToolStore()));
  const codeSandbox = once(() => import('../sandbox/code-runner.ts').then((m) => m.createSandboxRunner()));
  const benchStore = once(() => import('../evaluation/bench-store.ts').then((m) => m.BenchStore.open()));
  const plannerCompareStore = once(() =>
    import('../evaluation/compare-planners-store.ts').then((m) => m.PlannerCompareStore.open()),
  );
  // MiniSearch and the index's database load with the first file read, not with the page.
  const library = once(() => import('../attachments/passage-store.ts').then((m) => m.createPassageLibrary()));
  const passages: PassageLibrary = {
    indexFor: async (attachment) => (await library()).indexFor(attachment),
  };
  return {
    passages,
    vault,
    ledger,
    egress,
    runStore,
    threadStore,
    poolStore,
    outcomeStore,
    benchStore,
    plannerCompareStore,
    codeSandbox,
    toolStore,
  };
}

/** The part of the conductor bridge a run uses: planning, `self` steps' replanning, the `local` worker. */
export type RunConductor = Pick<ConductorBridge, 'plan' | 'replan' | 'chat'>;

/** What requests to workers are sent through: the conductor for `local`, egress for the cloud. */
export interface SendingServices {
  egress(): Promise<Pick<Egress, 'fetchFor' | 'hasKey'> & Partial<Pick<Egress, 'idle'>>>;
  bridge(): Promise<RunConductor>;
  /** Whether runs fail over (Settings); without it they do not. */
  runPrefs?(): RunPrefs;
  /** The page's code sandbox, for `run` steps (src/executor/run-step.ts). Absent: a `run` step says it cannot run. */
  codeSandbox?(): Promise<Pick<SandboxRunner, 'execute'>>;
}

// The modules a run needs, loaded on the first one. After that they come in a microtask, not after the
// task a dynamic import() of a loaded module still waits for: this is on the way from Run to the request.
export const executorModule = once(() => import('../executor/executor.ts'));
const bridgeModule = once(() => import('../conductor/bridge.ts'));
const chatTransportsModule = once(() => import('../egress/chat-transports.ts'));
const runWorkerModule = once(() => import('./run-worker.ts'));

/**
 * The conductor a run sends through, its thread reached on the first call that needs it (a step for the
 * on-device model, a `self` step's corrective steps): on a first visit the thread starts once the service
 * worker has taken the page, and a run of cloud steps does not wait for that.
 */
export function conductorOnDemand(
  services: Pick<SendingServices, 'bridge'>,
): Pick<RunConductor, 'replan' | 'chat'> {
  return {
    replan: async (...args) => (await services.bridge()).replan(...args),
    chat: async (...args) => (await services.bridge()).chat(...args),
  };
}

/**
 * One transport per worker: the on-device model for `local`, the code sandbox for `run`, else the worker's
 * egress transport (src/egress/chat-transports.ts). Runs and the bench send through these.
 */
export async function transports(
  pool: readonly WorkerSpec[],
  services: Pick<SendingServices, 'bridge' | 'egress' | 'codeSandbox'>,
): Promise<(worker: WorkerSpec) => ChatTransport> {
  const needsCloud = pool.some((w) => !onDevice(w.id));
  // At once, not one after another: this is on the way from Run to the first request.
  const [{ LocalChatTransport }, { withRunStep }, cloudModule, egress] = await Promise.all([
    bridgeModule(),
    runWorkerModule(),
    needsCloud ? chatTransportsModule() : undefined,
    needsCloud ? services.egress() : undefined,
  ]);
  const local = new LocalChatTransport(conductorOnDemand(services));
  const sandbox = services.codeSandbox?.bind(services);
  if (!cloudModule || !egress) return withRunStep(() => local, sandbox);
  const cloud = cloudModule.chatTransports(egress);
  return withRunStep((worker) => (worker.id === LOCAL_WORKER ? local : cloud(worker)), sandbox);
}

/**
 * How a run fails over, when the user lets it (Settings): a substitute must be able to send, that is have
 * a key saved for its provider at its origin, or be on a provider that needs none (a local server).
 */
export async function failoverFor(
  services: Pick<SendingServices, 'egress' | 'runPrefs'>,
): Promise<FailoverOptions | undefined> {
  if (!services.runPrefs?.().failover) return undefined;
  const egress = await services.egress();
  return {
    hasKey: async (worker) =>
      presetById(worker.providerId)?.needsKey === false ||
      egress.hasKey({ providerId: worker.providerId, baseURL: worker.baseURL }),
  };
}

/** Whether a worker's provider needs a key; an unknown provider is assumed to (egress refuses it anyway). */
function needsKey(worker: WorkerSpec): boolean {
  return !onDevice(worker.id) && (presetById(worker.providerId)?.needsKey ?? true);
}

/** Ids of the workers of `pool` that cannot authenticate: their provider needs a key and none is saved. */
export async function keylessWorkers(
  pool: readonly WorkerSpec[],
  services: Pick<SendingServices, 'egress'>,
): Promise<Set<string>> {
  const needing = pool.filter(needsKey);
  if (needing.length === 0) return new Set();
  const egress = await services.egress();
  const has = await Promise.all(needing.map((w) => egress.hasKey(w)));
  return new Set(needing.filter((_, i) => !has[i]).map((w) => w.id));
}
