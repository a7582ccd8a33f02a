/**
 * The outcomes (src/learning/outcome.ts) in their own IndexedDB database, 'baton-learning', so resetting
 * what Baton learned never touches the runs, and the runs' database can change without migrating this one.
 */
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { Outcome, OutcomeChange, OutcomeStore } from '../learning/outcome.ts';

export const LEARNING_DB = 'baton-learning';
/** 1: `outcomes`, keyed by run id, indexed by the time of the mark. */
const LEARNING_DB_VERSION = 1;

interface LearningDB extends DBSchema {
  outcomes: { key: string; value: Outcome; indexes: { at: number } };
}

/** Why the outcome store could not be opened or written, in words for the user. */
export class OutcomeStoreError extends Error {
  override name = 'OutcomeStoreError';
}

function writeProblem(error: unknown, what: string): Error {
  const name = (error as { name?: string }).name;
  if (name === 'QuotaExceededError') {
    return new OutcomeStoreError(
      `${what} could not be saved: this browser's storage for Baton is full. Deleting old runs in History or the cached model in Settings frees some.`,
    );
  }
  return error instanceof Error
    ? error
    : new OutcomeStoreError(`${what} could not be saved: ${String(error)}`);
}

export async function openOutcomeStore(name = LEARNING_DB): Promise<OutcomeStore & { close(): void }> {
  let db: IDBPDatabase<LearningDB> | undefined;
  const opened = await new Promise<IDBPDatabase<LearningDB>>((resolve, reject) => {
    openDB<LearningDB>(name, LEARNING_DB_VERSION, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          const outcomes = database.createObjectStore('outcomes', { keyPath: 'runId' });
          outcomes.createIndex('at', 'at');
        }
      },
      // A tab still on an older version keeps the upgrade waiting: say so rather than hang.
      blocked() {
        reject(
          new OutcomeStoreError(
            'What Baton learned cannot be opened: another Baton tab holds an older version of it open. Close the other tabs and reload.',
          ),
        );
      },
      // Another tab wants to upgrade or delete the database: step aside.
      blocking() {
        db?.close();
      },
    }).then(resolve, reject);
  });
  db = opened;
  const listeners = new Set<(change: OutcomeChange) => void>();
  const changed = (change: OutcomeChange) => {
    for (const listener of listeners) listener(change);
  };

  return {
    async put(outcome) {
      try {
        await opened.put('outcomes', outcome);
      } catch (error) {
        throw writeProblem(error, 'The mark');
      }
      changed({ kind: 'put', outcome });
    },
    get(runId) {
      return opened.get('outcomes', runId);
    },
    list() {
      return opened.getAllFromIndex('outcomes', 'at');
    },
    async remove(runId) {
      await opened.delete('outcomes', runId);
      changed({ kind: 'remove', runId });
    },
    async clear() {
      await opened.clear('outcomes');
      changed({ kind: 'clear' });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      opened.close();
    },
  };
}
