/**
 * The restore's thread (src/backup/restore-thread.ts says why): opens the packs the page hands over and
 * writes their records into this browser's databases, which it opens itself (IndexedDB is a worker's too;
 * the page's profile created them before).
 */
import { expose } from 'comlink';
import { type PackReader, packReader } from '../src/shared/pack-reader.ts';
import { openDatabaseWriter, type RecordWriter } from '../src/shared/profile-write.ts';
import { PAGE_KINDS, type RestoreThreadApi } from '../src/shared/restore-thread-api.ts';

class RestoreThread implements RestoreThreadApi {
  private databases: (RecordWriter & { close(): void }) | undefined;
  private reader: PackReader | undefined;

  async start(...[keys, databases]: Parameters<RestoreThreadApi['start']>) {
    this.databases = await openDatabaseWriter(databases);
    this.reader = packReader(keys, this.databases, PAGE_KINDS);
  }

  private started(): PackReader {
    if (!this.reader) throw new Error('the restore thread was not started');
    return this.reader;
  }

  open(...[name, sealed]: Parameters<RestoreThreadApi['open']>) {
    return this.started().open(name, sealed);
  }

  write(...[entry]: Parameters<RestoreThreadApi['write']>) {
    return this.started().write(entry);
  }

  release(...[name]: Parameters<RestoreThreadApi['release']>) {
    return this.started().release(name);
  }

  async close() {
    await this.reader?.close();
    this.databases?.close();
  }
}

expose(new RestoreThread());
