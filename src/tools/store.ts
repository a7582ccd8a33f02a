/**
 * The user's MCP servers, persisted in IndexedDB ('baton-tools') as the pool is ('baton-pool'): a database
 * of its own beside its folder's code. A server's bearer token is not here: it is a key in the vault.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { serverProblems, type ToolServer } from './servers.ts';

export const TOOLS_DB = 'baton-tools';

interface StoredServer extends ToolServer {
  /** Position in the user's order. */
  order: number;
}

interface ToolsDB extends DBSchema {
  servers: { key: string; value: StoredServer };
}

export class ToolServerError extends Error {
  override name = 'ToolServerError';
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

export interface ToolStore {
  /** In the user's order. */
  list(): Promise<ToolServer[]>;
  get(id: string): Promise<ToolServer | undefined>;
  /** Creates or replaces a server (a new one goes last). Throws ToolServerError with the problems. */
  save(server: ToolServer): Promise<void>;
  remove(id: string): Promise<boolean>;
  subscribe(listener: () => void): () => void;
  close(): void;
}

function strip(stored: StoredServer): ToolServer {
  const { order: _order, ...server } = stored;
  return server;
}

export async function openToolStore(name = TOOLS_DB): Promise<ToolStore> {
  const db: IDBPDatabase<ToolsDB> = await openDB<ToolsDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('servers', { keyPath: 'id' });
    },
  });
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  return {
    async list() {
      return (await db.getAll('servers')).sort((a, b) => a.order - b.order).map(strip);
    },
    async get(id) {
      const stored = await db.get('servers', id);
      return stored && strip(stored);
    },
    async save(server) {
      const problems = serverProblems(server);
      if (problems.length) throw new ToolServerError(problems);
      const tx = db.transaction('servers', 'readwrite');
      const existing = await tx.store.get(server.id);
      let order = existing?.order;
      if (order === undefined) {
        let max = -1;
        for (let c = await tx.store.openCursor(); c; c = await c.continue())
          max = Math.max(max, c.value.order);
        order = max + 1;
      }
      // Only the tools it listed can be offered: a name not among them is dropped.
      const listed = new Set(server.tools.map((tool) => tool.name));
      await tx.store.put({ ...server, offered: server.offered.filter((name) => listed.has(name)), order });
      await tx.done;
      changed();
    },
    async remove(id) {
      const tx = db.transaction('servers', 'readwrite');
      const existing = await tx.store.getKey(id);
      if (existing !== undefined) await tx.store.delete(id);
      await tx.done;
      if (existing !== undefined) changed();
      return existing !== undefined;
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
