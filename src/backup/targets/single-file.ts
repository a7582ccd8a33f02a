/**
 * One file holding a whole backup, where no folder, bucket or server can be used: the objects are kept in
 * memory while a backup is written, then saved as one download; opening that file restores from it. The
 * objects are sealed as in any other target, so the file is as unreadable as a bucket's contents.
 */

import { bytesOfBase64 } from '../../attachments/export.ts';
import { base64Of } from '../../attachments/parts.ts';
import { BackupError } from '../format.ts';
import type { BackupTarget } from './target.ts';

const FILE_FORMAT = 'baton-backup-file';

export interface SingleFileTarget extends BackupTarget {
  /** The whole backup as one file's bytes. */
  toBytes(): Uint8Array<ArrayBuffer>;
}

export function singleFileTarget(from?: Uint8Array, fileName = 'backup file'): SingleFileTarget {
  const objects = new Map<string, Uint8Array<ArrayBuffer>>();
  if (from) {
    let parsed: { format?: unknown; objects?: Record<string, string> };
    try {
      parsed = JSON.parse(new TextDecoder().decode(from)) as typeof parsed;
    } catch {
      throw new BackupError('not-a-backup', `${fileName} is not a Baton backup file.`);
    }
    if (parsed.format !== FILE_FORMAT || typeof parsed.objects !== 'object' || parsed.objects === null) {
      throw new BackupError('not-a-backup', `${fileName} is not a Baton backup file.`);
    }
    for (const [name, text] of Object.entries(parsed.objects)) objects.set(name, bytesOfBase64(text));
  }
  return {
    label: fileName,
    async put(name, bytes) {
      objects.set(name, bytes.slice());
    },
    async get(name) {
      return objects.get(name)?.slice();
    },
    async list(prefix) {
      return [...objects.keys()].filter((name) => name.startsWith(prefix));
    },
    async delete(name) {
      objects.delete(name);
    },
    toBytes() {
      const out: Record<string, string> = {};
      for (const [name, bytes] of objects) out[name] = base64Of(bytes);
      return new TextEncoder().encode(JSON.stringify({ format: FILE_FORMAT, objects: out }));
    },
  };
}
