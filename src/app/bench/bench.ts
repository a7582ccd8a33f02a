/**
 * The bench's state and actions, outside the screen that shows them: its store, the benches stored there,
 * starting one (after validating the form), resuming an interrupted one, showing and comparing results.
 * src/ui/bench/BenchScreen.tsx keeps only the form's fields. Each part is a file of this folder;
 * `createBench` builds them over one shared core (bench-core.ts).
 */
import type { BenchRunRecord } from '../../evaluation/bench-store.ts';
import { screenStore } from '../screen-store.ts';
import { type BenchOptions, createBenchCore } from './bench-core.ts';
import { createBenchDocument } from './bench-document.ts';
import { createBenchLaunching } from './launching.ts';

export const UNFINISHED_BENCH: readonly BenchRunRecord['state'][] = ['running', 'paused'];

export type Bench = ReturnType<typeof createBench>;

export function createBench(options: BenchOptions) {
  const held = screenStore(options);
  const core = createBenchCore(options, held.store);
  const { store, storeError, runs, progress, activeId, shown, compare, problem } = core;
  const { start, resumeStored } = createBenchLaunching(core);
  const document = createBenchDocument();

  /** Opens the store and lists its benches; a store that cannot open is said, and the bench runs unstored. */
  async function open(): Promise<void> {
    try {
      if (await held.open()) await core.refreshRuns();
    } catch (error) {
      storeError.value = `Results cannot be stored here: ${(error as Error).message}`;
    }
  }

  async function show(id: string, into: 'shown' | 'compare'): Promise<void> {
    const stored = await store.value?.getRun(id);
    if (!stored) return;
    if (into === 'shown') shown.value = stored;
    else compare.value = stored;
  }

  /** Deletes a stored bench and its results (not the one running). */
  async function remove(id: string): Promise<void> {
    const s = store.value;
    if (!s || id === activeId.value) return;
    await s.deleteRun(id);
    if (shown.value?.run.id === id) shown.value = undefined;
    if (compare.value?.run.id === id) compare.value = undefined;
    await core.refreshRuns();
  }

  /** Leaving the bench pauses it (items in flight still finish and are stored), so it can be resumed. */
  function leave(): void {
    core.controller?.pause();
    core.codeRunner?.dispose?.();
    core.codeRunner = undefined;
    document.dispose();
  }

  /** Leaves it for good: its store is closed too when it owns it. */
  function close(): void {
    leave();
    held.close();
  }

  return {
    store,
    storeError,
    runs,
    progress,
    activeId,
    shown,
    compare,
    problem,
    document,
    open,
    refreshRuns: core.refreshRuns,
    start,
    resumeStored,
    show,
    remove,
    leave,
    close,
    pause: () => core.controller?.pause(),
    resume: () => core.controller?.resume(),
    cancel: () => core.controller?.cancel(),
  };
}
