import type { RunRecord, StepRecord } from '../../records/runs-db.ts';
import { storeImported } from '../history.ts';
import { exportedFiles } from '../run-files.ts';
import { downloadText } from '../save-file.ts';
import type { ThreadCore } from './thread-core.ts';

/** The stored threads: the list, rename, delete, and a thread exported to a file or imported from one. */
export function createStoredThreads(core: ThreadCore) {
  const { current, listing, services } = core;

  async function rename(id: string, title: string): Promise<void> {
    const trimmed = title.trim();
    if (!trimmed) return;
    const threads = await core.store();
    const thread = await threads.getThread(id);
    if (!thread) return;
    await threads.putThread({ ...thread, title: trimmed, titleEdited: true, updatedAt: Date.now() });
    if (current.value?.id === id) current.value = { ...current.value, title: trimmed };
    await core.refreshList();
  }

  /** Pins the thread to the top of the list, or unpins it. Its time of last activity is not changed. */
  async function setPinned(id: string, pinned: boolean): Promise<void> {
    const threads = await core.store();
    const thread = await threads.getThread(id);
    if (!thread) return;
    const { pinned: _was, ...rest } = thread;
    await threads.putThread(pinned ? { ...rest, pinned: true } : rest);
    await core.refreshList();
  }

  /**
   * Sets the thread's standing instructions (blank: none). The next turn asked carries them; a turn already
   * running keeps what it was started with. A thread whose record is not written yet (its first turn still
   * starting) gets one now, which that turn's own write then keeps.
   */
  async function setInstructions(id: string, text: string): Promise<void> {
    const instructions = text.trim();
    const threads = await core.store();
    const now = Date.now();
    const thread = (await threads.getThread(id)) ?? {
      id,
      schema: 1 as const,
      title: current.value?.id === id ? current.value.title : '',
      createdAt: now,
      updatedAt: now,
    };
    const { instructions: _old, ...rest } = thread;
    await threads.putThread({ ...rest, ...(instructions ? { instructions } : {}), updatedAt: now });
    const state = current.value;
    if (state?.id === id) {
      const { instructions: _was, ...kept } = state;
      current.value = instructions ? { ...kept, instructions } : kept;
    }
  }

  async function loadList(): Promise<void> {
    listing.value = await (await core.store()).listThreads();
  }

  async function deleteThread(id: string): Promise<void> {
    await (await core.store()).deleteThread(id);
    if (current.value?.id === id) current.value = undefined;
    await core.refreshList();
  }

  /** Every run of the thread with its steps (an unreadable one is left out of the file). */
  async function runsOf(id: string): Promise<{ run: RunRecord; steps: StepRecord[] }[]> {
    const [threads, runStore] = await Promise.all([core.store(), services.runStore()]);
    const out: { run: RunRecord; steps: StepRecord[] }[] = [];
    for (const runId of await threads.runIds(id)) {
      const stored = await runStore.getRun(runId).catch(() => undefined);
      if (stored) out.push(stored);
    }
    return out;
  }

  /** A stored thread's record and what its exports are written with; undefined when there is none. */
  async function exportable(id: string) {
    const [m, threads] = await Promise.all([import('../thread-export.ts'), core.store()]);
    const thread = await threads.getThread(id);
    return thread ? { m, threads, thread } : undefined;
  }

  type Exportable = NonNullable<Awaited<ReturnType<typeof exportable>>>;

  /** Every run of every branch, each with its attached files, as a run's export carries them. */
  async function jsonOf({ m, thread }: Exportable): Promise<string> {
    const runStore = await services.runStore();
    const runs = await Promise.all(
      (await runsOf(thread.id)).map(async (one) => ({
        ...one,
        files: await exportedFiles(runStore, one.run),
      })),
    );
    return m.exportThreadJson(thread, runs);
  }

  /** The branch on screen as a Markdown report. */
  async function markdownOf({ m, threads, thread }: Exportable): Promise<string> {
    const all = await runsOf(thread.id);
    const page = await threads.openThread(thread.id, { limit: Number.MAX_SAFE_INTEGER });
    const byId = new Map(all.map((r) => [r.run.id, r]));
    const branch = (page?.turns ?? []).flatMap((t) => byId.get(t.id) ?? []);
    return m.exportThreadMarkdown(thread, branch);
  }

  /** The text of a thread's JSON export; undefined when there is no such thread. */
  async function threadJson(id: string): Promise<string | undefined> {
    const found = await exportable(id);
    return found && jsonOf(found);
  }

  /** Saves the whole thread (JSON: every branch) or the branch on screen (Markdown) as a file. */
  async function exportThread(kind: 'json' | 'md', id: string): Promise<void> {
    const [exports, found] = await Promise.all([import('../export.ts'), exportable(id)]);
    if (!found) return;
    const text = await (kind === 'json' ? jsonOf(found) : markdownOf(found));
    const name = exports
      .exportFilename({ id, question: found.thread.title }, kind)
      .replace(/^run-/, 'thread-');
    downloadText(name, text, kind === 'json' ? 'application/json' : 'text/markdown');
  }

  /**
   * Stores an exported thread: every run not already in the history (same id), and the thread record.
   * An unknown schema version, a damaged run or turns that do not hold together refuse the whole file.
   */
  async function importThread(
    text: string,
  ): Promise<{ ok: true; id: string; added: number } | { ok: false; error: string }> {
    const { parseThreadImport } = await import('../thread-export.ts');
    const parsed = await parseThreadImport(text);
    if (!parsed.ok) return parsed;
    const [threads, runStore] = await Promise.all([core.store(), services.runStore()]);
    let added = 0;
    for (const one of parsed.data.runs) if (await storeImported(runStore, one)) added++;
    const existing = await threads.getThread(parsed.data.thread.id);
    if (!existing || added > 0) await threads.putThread({ ...parsed.data.thread, updatedAt: Date.now() });
    await core.refreshList();
    return { ok: true, id: parsed.data.thread.id, added };
  }

  return {
    rename,
    setPinned,
    setInstructions,
    loadList,
    deleteThread,
    threadJson,
    exportThread,
    importThread,
  };
}
