import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * seedApp's init script as the bench makes it: under tsx, whose esbuild wraps named inner functions in
 * `__name(…)` (Playwright's own transform, which runs the specs, does not), so it is made in a tsx process.
 */
function benchSeedScript(): string {
  const code = `
    import { modelWorker, seedApp } from ${JSON.stringify(resolve(root, 'test/browser/seed-app.ts'))};
    let content = '';
    const page = { addInitScript: async (script) => { content = script.content; } };
    await seedApp(page, { pool: [modelWorker('w1', 'http://127.0.0.1:9/v1', 'm1', 'Walker general')] });
    process.stdout.write(content);
  `;
  return execFileSync(resolve(root, 'node_modules/.bin/tsx'), ['--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  });
}

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (n) => [...items.keys()][n] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

function readWorkers(indexedDB: IDBFactory): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open('baton-pool');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('workers')) return resolve([]);
      const all = db.transaction('workers').objectStore('workers').getAll();
      all.onsuccess = () => resolve(all.result);
    };
  });
}

describe('seedApp in the bench', () => {
  it('seeds the pool from an init script made under tsx (p30 seeds its worker so)', async () => {
    const indexedDB = new IDBFactory();
    const page: Record<string, unknown> = {
      indexedDB,
      localStorage: memoryStorage(),
      sessionStorage: memoryStorage(),
    };
    page.window = page;
    page.top = page;
    runInNewContext(benchSeedScript(), page);
    const workers = (await readWorkers(indexedDB)) as { id: string; label: string; order: number }[];
    expect(workers.map(({ id, label, order }) => ({ id, label, order }))).toEqual([
      { id: 'w1', label: 'Walker general', order: 0 },
    ]);
  });
});
