/**
 * The egress ledger: one entry per request that left the page (or that egress refused to send), in
 * IndexedDB so the user can read and export it. Entries hold no keys and no headers.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Estimator } from '../shared/token-estimate.ts';

/**
 * `model-download`: a file of the on-device conductor model, fetched by its Web Worker. `local-planning`:
 * the conductor's call to a planner server on this machine (it never leaves the device). `backup`: an
 * encrypted backup object written to or read from the user's own storage (src/backup/).
 */
export type LedgerPurpose =
  | 'chat'
  | 'models'
  | 'connection-test'
  | 'probe'
  | 'model-download'
  | 'local-planning'
  | 'tool'
  | 'backup'
  | 'other';

export interface LedgerEntry {
  id: number;
  /** `Date.now()` when the request was about to leave. */
  time: number;
  runId?: string;
  stepIndex?: number;
  /** The pool worker a chat request was sent for: its id, and its label as it was then. */
  workerId?: string;
  worker?: string;
  /** An MCP server's request (purpose `tool`): the server's name, and the tool of a `tools/call`. */
  server?: string;
  tool?: string;
  purpose: LedgerPurpose;
  providerId: string;
  /** `host[:port]` of the request. */
  host: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** False when egress refused to send it (foreign origin, no key): nothing left the page. */
  sent: boolean;
  /** Whether a key was attached (never the key itself). */
  keyAttached: boolean;
  /**
   * How many saved keys of OTHER origins were found in the request body (a key quoted in an earlier
   * answer, say) and replaced with `[redacted key]` before it left. Absent when none was.
   */
  keysRemoved?: number;
  /** How many saved keys (any origin's) were found in the response and replaced before the page read it. */
  answerKeysRemoved?: number;
  /** `pending` until the response headers arrive, `streaming` while the body is read, then `done` or `error`. */
  state: 'pending' | 'streaming' | 'done' | 'error';
  /** HTTP status; 0 for an opaque (`no-cors`) answer. */
  status?: number;
  /** Why the request failed or was refused, for people; never contains a key. */
  error?: string;
  /** Request body bytes. */
  bytesOut: number;
  /**
   * Of `bytesOut`, the bytes that are attachments (an image's base64, an attached file's text), as the
   * request declared them (`EgressContext.attachmentBytes`). Absent when it carried none.
   */
  attachmentBytes?: number;
  /**
   * The same bytes by document (the attachment's content hash): how much of which file left, whole or
   * in passages. Absent when it carried none.
   */
  documentBytes?: Record<string, number>;
  /** Response body bytes as the page read them (after content decoding). */
  bytesIn: number;
  /** From `time` until the response body ended (or the request failed). */
  durationMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  /**
   * Set when the provider sent no usage and the tokens above are Baton's estimate (the run's own count
   * of that request), with the estimator that made it.
   */
  tokensEstimatedBy?: Estimator;
}

/** A request's tokens as estimated by the run, for its ledger entry (see `Ledger.noteEstimate`). */
export interface EstimatedTokens {
  runId: string;
  stepIndex: number;
  promptTokens: number;
  completionTokens: number;
  estimator: Estimator;
  /** When the request ended (Date.now()): the entry is the step's newest chat request sent before then. */
  endedAt: number;
}

export type NewLedgerEntry = Omit<LedgerEntry, 'id'>;

export type LedgerChange =
  | { type: 'added'; entry: LedgerEntry }
  | { type: 'updated'; entry: LedgerEntry }
  | { type: 'cleared' };

interface LedgerDB extends DBSchema {
  entries: {
    key: number;
    value: LedgerEntry;
    indexes: { 'by-run': string };
  };
}

export interface Ledger {
  /** Writes a new entry and returns its id. */
  add(entry: NewLedgerEntry): Promise<LedgerEntry>;
  /** Replaces an entry written by `add` (state, status, bytes, tokens); an estimate noted on it stays. */
  update(entry: LedgerEntry): Promise<void>;
  /**
   * Writes a run's estimate into the entry of a chat request whose provider sent no usage. Returns the
   * entry, or undefined when there is none to fill (the ledger was cleared, or the provider did count).
   */
  noteEstimate(estimate: EstimatedTokens): Promise<LedgerEntry | undefined>;
  /** Oldest first. */
  list(filter?: { runId?: string }): Promise<LedgerEntry[]>;
  /**
   * One page, newest first: at most `size` entries (default LEDGER_PAGE_SIZE) older than the entry `before`
   * (an id; omitted: from the newest). Reads only that page, however long the ledger is.
   */
  page(options?: { before?: number; size?: number }): Promise<LedgerPage>;
  exportJSON(): Promise<string>;
  exportCSV(): Promise<string>;
  clear(): Promise<void>;
  /** Called after every change made through this object. Returns the unsubscribe function. */
  subscribe(listener: (change: LedgerChange) => void): () => void;
  close(): void;
}

export const LEDGER_DB = 'baton-ledger';

/** Entries per page of the ledger panel. */
export const LEDGER_PAGE_SIZE = 100;

export interface LedgerPage {
  /** Newest first. */
  entries: LedgerEntry[];
  /** Entries in the whole ledger. */
  total: number;
  /** Pass as `before` for the next (older) page; absent on the last page. */
  nextBefore?: number;
}

/** Columns of the CSV export, in order. */
export const CSV_COLUMNS = [
  'id',
  'time',
  'runId',
  'stepIndex',
  'purpose',
  'providerId',
  'host',
  'method',
  'path',
  'sent',
  'keyAttached',
  'keysRemoved',
  'answerKeysRemoved',
  'state',
  'status',
  'error',
  'bytesOut',
  'attachmentBytes',
  'documentBytes',
  'bytesIn',
  'durationMs',
  'promptTokens',
  'completionTokens',
  'tokensEstimatedBy',
  // Added with tools: last, so a sheet reading the earlier columns by position still reads them.
  'server',
  'tool',
] as const satisfies readonly (keyof LedgerEntry)[];

export async function openLedger(name = LEDGER_DB): Promise<Ledger> {
  const db: IDBPDatabase<LedgerDB> = await openDB<LedgerDB>(name, 1, {
    upgrade(database) {
      const store = database.createObjectStore('entries', { keyPath: 'id', autoIncrement: true });
      store.createIndex('by-run', 'runId');
    },
  });
  const listeners = new Set<(change: LedgerChange) => void>();
  const emit = (change: LedgerChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        console.error('ledger listener failed', error);
      }
    }
  };

  async function list(filter: { runId?: string } = {}): Promise<LedgerEntry[]> {
    const entries =
      filter.runId === undefined
        ? await db.getAll('entries')
        : await db.getAllFromIndex('entries', 'by-run', filter.runId);
    return entries.sort((a, b) => a.id - b.id);
  }

  async function page(options: { before?: number; size?: number } = {}): Promise<LedgerPage> {
    const size = Math.max(1, Math.floor(options.size ?? LEDGER_PAGE_SIZE));
    const tx = db.transaction('entries');
    const range = options.before === undefined ? undefined : IDBKeyRange.upperBound(options.before, true);
    const entries: LedgerEntry[] = [];
    let more = false;
    for (let cursor = await tx.store.openCursor(range, 'prev'); cursor; cursor = await cursor.continue()) {
      if (entries.length === size) {
        more = true;
        break;
      }
      entries.push(cursor.value);
    }
    const total = await tx.store.count();
    await tx.done;
    const last = entries.at(-1);
    return { entries, total, ...(more && last ? { nextBefore: last.id } : {}) };
  }

  return {
    page,
    async add(entry) {
      // autoIncrement assigns the id; the store's type wants it, so the cast is only for `add`.
      const id = await db.add('entries', entry as LedgerEntry);
      const saved = { ...entry, id };
      emit({ type: 'added', entry: saved });
      return saved;
    },
    async update(entry) {
      const tx = db.transaction('entries', 'readwrite');
      // With its own token counts the entry wins whatever is stored: no read first (a request's last
      // write is on the way from its answer to the next step's request).
      const stored = entry.promptTokens === undefined ? await tx.store.get(entry.id) : undefined;
      // A request's own writes do not know of an estimate the run noted meanwhile (a cancelled stream
      // ends on both sides at once): they must not wipe it.
      const next =
        stored?.tokensEstimatedBy !== undefined && entry.promptTokens === undefined
          ? {
              ...entry,
              promptTokens: stored.promptTokens,
              completionTokens: stored.completionTokens,
              tokensEstimatedBy: stored.tokensEstimatedBy,
            }
          : entry;
      await tx.store.put(next);
      await tx.done;
      emit({ type: 'updated', entry: next });
    },
    async noteEstimate(estimate) {
      const tx = db.transaction('entries', 'readwrite');
      const candidates = await tx.store.index('by-run').getAll(estimate.runId);
      const entry = candidates
        .filter(
          (e) =>
            e.stepIndex === estimate.stepIndex &&
            e.purpose === 'chat' &&
            e.sent &&
            e.time <= estimate.endedAt &&
            e.promptTokens === undefined &&
            e.completionTokens === undefined &&
            e.tokensEstimatedBy === undefined,
        )
        .sort((a, b) => b.id - a.id)[0];
      if (!entry) {
        await tx.done;
        return undefined;
      }
      const next: LedgerEntry = {
        ...entry,
        promptTokens: estimate.promptTokens,
        completionTokens: estimate.completionTokens,
        tokensEstimatedBy: estimate.estimator,
      };
      await tx.store.put(next);
      await tx.done;
      emit({ type: 'updated', entry: next });
      return next;
    },
    list,
    async exportJSON() {
      return JSON.stringify(await list(), null, 2);
    },
    async exportCSV() {
      const rows = (await list()).map((entry) =>
        CSV_COLUMNS.map((c) => csvField(c === 'documentBytes' ? documentsText(entry[c]) : entry[c])).join(
          ',',
        ),
      );
      return [CSV_COLUMNS.join(','), ...rows].join('\r\n');
    },
    async clear() {
      await db.clear('entries');
      emit({ type: 'cleared' });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      db.close();
    },
  };
}

/** RFC 4180 quoting, and a leading `'` on text a spreadsheet would run as a formula. */
/** A request's bytes by document as one CSV field: `hash:bytes` pairs, `;` between them. */
function documentsText(bytes: Record<string, number> | undefined): string | undefined {
  return bytes
    ? Object.entries(bytes)
        .map(([id, n]) => `${id}:${n}`)
        .join(';')
    : undefined;
}

export function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
