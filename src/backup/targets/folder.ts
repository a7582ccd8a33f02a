/**
 * A folder on the user's disk, through the File System Access API (Chromium's `showDirectoryPicker`):
 * no network at all. The folder's handle is kept (IndexedDB stores it as it is); the browser asks the
 * user again for permission after a restart.
 */
import type { BackupTarget } from './target.ts';

/** The part of FileSystemDirectoryHandle used here (`keys()` is missing from TypeScript's DOM lib). */
export interface FolderHandle {
  readonly name: string;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileSystemFileHandle>;
  removeEntry(name: string): Promise<void>;
  keys(): AsyncIterable<string>;
  queryPermission?(options: { mode: 'readwrite' }): Promise<PermissionState>;
  requestPermission?(options: { mode: 'readwrite' }): Promise<PermissionState>;
}

/** Whether this browser can back up to a folder (else: one file to download). */
export function foldersSupported(): boolean {
  return typeof (globalThis as { showDirectoryPicker?: unknown }).showDirectoryPicker === 'function';
}

/** Asks the user for a folder (needs a click). */
export async function pickFolder(): Promise<FolderHandle> {
  const picker = (globalThis as unknown as { showDirectoryPicker: (o: object) => Promise<FolderHandle> })
    .showDirectoryPicker;
  return picker({ mode: 'readwrite', id: 'baton-backup' });
}

/** Permission to write, asked for when it lapsed (needs a click when it must be asked). */
export async function folderPermitted(handle: FolderHandle): Promise<boolean> {
  if (!handle.queryPermission) return true;
  if ((await handle.queryPermission({ mode: 'readwrite' })) === 'granted') return true;
  return (await handle.requestPermission?.({ mode: 'readwrite' })) === 'granted';
}

function notFound(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotFoundError' || error.name === 'TypeMismatchError');
}

export function folderTarget(handle: FolderHandle): BackupTarget {
  return {
    label: `folder ${handle.name}`,
    async put(name, bytes) {
      const file = await handle.getFileHandle(name, { create: true });
      const writable = await file.createWritable();
      await writable.write(bytes);
      await writable.close();
    },
    async get(name) {
      try {
        const file = await (await handle.getFileHandle(name)).getFile();
        return new Uint8Array(await file.arrayBuffer());
      } catch (error) {
        if (notFound(error)) return undefined;
        throw error;
      }
    },
    async list(prefix) {
      const names: string[] = [];
      for await (const name of handle.keys()) if (name.startsWith(prefix)) names.push(name);
      return names;
    },
    async delete(name) {
      try {
        await handle.removeEntry(name);
      } catch (error) {
        if (!notFound(error)) throw error;
      }
    },
  };
}
