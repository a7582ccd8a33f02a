// Runs before each test file. Files share their thread's imports (vitest.config.ts: isolate false), so
// each starts as a fresh module graph would: our own modules evaluated anew (module state such as the
// loaded tokenizer is the file's own; dependencies stay loaded, which is what saves the time), and an
// empty IndexedDB, so the databases a file names are not another file's.
import { IDBFactory } from 'fake-indexeddb';
import { vi } from 'vitest';

vi.resetModules();
if ('indexedDB' in globalThis) globalThis.indexedDB = new IDBFactory();
