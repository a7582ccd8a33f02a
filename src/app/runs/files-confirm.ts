import { signal } from '@preact/signals';
import { presetById } from '../../providers/catalog.ts';
import { resolveFiles } from '../../shared/plan/files.ts';
import type { Step } from '../../shared/plan/index.ts';
import { onDevice } from '../../shared/worker-ids.ts';
import type { WorkerSpec } from '../../shared/worker-spec.ts';
import { parseJson, type StoredValue, storedValue } from '../local-store.ts';
import type { RunCore } from './run-core.ts';

/**
 * A plan nobody reviewed (review is off by default) sends the user's files where the planner says. Before
 * a file goes to more than one provider, or to a provider the user has not sent files to before, the run
 * view asks, in one line, naming the files and where they go; "remember" stops the asking for those
 * providers. Declined, the run stops before the step with the file is sent (steps done are kept).
 * Workers on this device (the local model, the code sandbox) and local servers are not asked about.
 * A review the user did (review on) shows the same in the plan editor: no confirm after it.
 */

/** Where a plan sends files: one provider, the files and the workers that take them there. */
export interface FileDestination {
  /** The provider preset's id; a custom endpoint's origin. */
  key: string;
  /** The provider's name, or the endpoint's host. */
  name: string;
  files: string[];
  workers: string[];
}

/** What the user has told Baton about providers and files, kept across visits. */
export interface KnownProviders {
  /** Providers the user has let files go to. */
  sentTo: string[];
  /** Providers the user said never to ask about again. */
  remembered: string[];
}

/** A run's files, waiting for the user's OK to go where the plan sends them. */
export interface FilesConfirm {
  runId: string;
  destinations: FileDestination[];
  /** The plan streams into a run already going: declining stops it, steps done kept. */
  streaming: boolean;
}

const NOTHING_KNOWN: KnownProviders = { sentTo: [], remembered: [] };

function readKnown(raw: string | null): KnownProviders {
  const value = parseJson(raw) as Partial<KnownProviders> | undefined;
  const strings = (list: unknown) =>
    Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : [];
  return value && typeof value === 'object'
    ? { sentTo: strings(value.sentTo), remembered: strings(value.remembered) }
    : NOTHING_KNOWN;
}

export function knownProvidersStore(): StoredValue<KnownProviders> {
  return storedValue('baton.fileProviders', readKnown);
}

/**
 * The provider a worker's files go to, by the user's name for it; undefined for a worker whose files stay
 * on this machine: the on-device ones, and a local server (Ollama, LM Studio, llama.cpp, vLLM). A custom
 * endpoint on this machine is asked about: it may be a proxy to anywhere.
 */
export function providerOf(worker: WorkerSpec): { key: string; name: string } | undefined {
  if (onDevice(worker.id)) return undefined;
  const preset = presetById(worker.providerId);
  if (preset?.kind === 'local') return undefined;
  if (preset?.kind === 'cloud') return { key: preset.id, name: preset.name };
  try {
    const url = new URL(worker.baseURL);
    return { key: url.origin, name: url.host };
  } catch {
    return { key: worker.baseURL, name: worker.baseURL };
  }
}

/** The providers `steps` send files to, in the order the steps reach them. */
export function fileDestinations(
  steps: readonly Step[],
  pool: readonly WorkerSpec[],
  fileNames: readonly string[],
): FileDestination[] {
  const byKey = new Map<string, FileDestination>();
  for (const step of steps) {
    const files = resolveFiles(step.files, fileNames.length);
    const worker = pool.find((w) => w.id === step.worker);
    const provider = worker && files.length > 0 ? providerOf(worker) : undefined;
    if (!worker || !provider) continue;
    const at = byKey.get(provider.key) ?? { ...provider, files: [], workers: [] };
    byKey.set(provider.key, at);
    for (const i of files) {
      const name = fileNames[i] as string;
      if (!at.files.includes(name)) at.files.push(name);
    }
    if (!at.workers.includes(worker.label)) at.workers.push(worker.label);
  }
  return [...byKey.values()];
}

/**
 * Whether sending files to `destinations` needs the user's OK: some of them are not remembered, and
 * either they are more than one provider, or one the user has not sent files to before.
 */
export function needsConsent(destinations: readonly FileDestination[], known: KnownProviders): boolean {
  const asked = destinations.filter((d) => !known.remembered.includes(d.key));
  if (asked.length === 0) return false;
  return destinations.length > 1 || asked.some((d) => !known.sentTo.includes(d.key));
}

/** What a run whose files the user kept back says, on the run view. */
export function keptBackText(destinations: readonly FileDestination[]): string {
  const files = [...new Set(destinations.flatMap((d) => d.files))];
  return `Stopped before sending ${files.join(', ')} to ${destinations.map((d) => d.name).join(' and ')}: you chose not to send ${files.length === 1 ? 'it' : 'them'}. Steps done are kept.`;
}

export type FilesConfirmation = ReturnType<typeof createFilesConfirm>;

export function createFilesConfirm(
  core: RunCore,
  known: StoredValue<KnownProviders> = knownProvidersStore(),
) {
  const filesConfirm = signal<FilesConfirm | undefined>(undefined);
  let settleFiles: ((ok: boolean) => void) | undefined;

  function fileNames(runId: string): string[] {
    return core.runFiles.get(runId).map((file) => file.name);
  }

  /** True at once when no OK is needed; else shows the confirm and resolves with the user's answer. */
  function approveFiles(
    runId: string,
    destinations: FileDestination[],
    streaming: boolean,
  ): Promise<boolean> {
    if (!needsConsent(destinations, known.read())) return Promise.resolve(true);
    settleConfirm(false, false);
    return new Promise((resolve) => {
      settleFiles = resolve;
      filesConfirm.value = { runId, destinations, streaming };
    });
  }

  /** The user's answer: send (and, with `remember`, never ask about these providers again) or not. */
  function confirmFiles(ok: boolean, remember = false): void {
    const open = filesConfirm.value;
    if (ok && open) {
      const keys = open.destinations.map((d) => d.key);
      const now = known.read();
      known.write({
        sentTo: [...new Set([...now.sentTo, ...keys])],
        remembered: remember ? [...new Set([...now.remembered, ...keys])] : now.remembered,
      });
    }
    settleConfirm(ok, true);
  }

  /** Closes the confirm with `ok`; a streaming run the user kept its files from stops here. */
  function settleConfirm(ok: boolean, byUser: boolean): void {
    const settle = settleFiles;
    const open = filesConfirm.value;
    settleFiles = undefined;
    filesConfirm.value = undefined;
    const handle = core.handle;
    if (open?.streaming && !ok && handle?.runId === open.runId) {
      if (byUser) core.declined.set(open.runId, keptBackText(open.destinations));
      handle.cancel();
    }
    settle?.(ok);
  }

  /**
   * A whole plan nobody reviewed: undefined when its files may go where it sends them, else what the run
   * says of the files kept back.
   */
  async function approvePlan(
    runId: string,
    steps: readonly Step[],
    pool: readonly WorkerSpec[],
  ): Promise<string | undefined> {
    const destinations = fileDestinations(steps, pool, fileNames(runId));
    return (await approveFiles(runId, destinations, false)) ? undefined : keptBackText(destinations);
  }

  /**
   * The streamed steps, each step that sends files to a provider this run has not been let send to held
   * until the user agrees (declined: the run stops, and that step and the rest are never sent).
   */
  async function* withFileConsent(
    steps: AsyncIterable<Step>,
    runId: string,
    pool: readonly WorkerSpec[],
  ): AsyncIterable<Step> {
    const sofar: Step[] = [];
    const agreed = new Set<string>();
    for await (const step of steps) {
      sofar.push(step);
      const destinations = fileDestinations(sofar, pool, fileNames(runId));
      if (destinations.some((d) => !agreed.has(d.key))) {
        if (!(await approveFiles(runId, destinations, true))) return;
        for (const d of destinations) agreed.add(d.key);
      }
      yield step;
    }
  }

  return { filesConfirm, confirmFiles, settleConfirm, approvePlan, withFileConsent };
}
