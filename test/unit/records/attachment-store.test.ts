import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { keepRunFiles } from '../../../src/app/run-files.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { csvAttachment, pngAttachment, runWithFiles } from '../../fixtures/attachments.ts';

describe('attachments in the runs database', () => {
  it('keeps each file once, reads it back under the name each run gave it, and deletes it with its last run', async () => {
    const store = await openRunStore('attachments-dedupe');
    const csv = await csvAttachment('sales.csv', 'a,b\n1,2\n');
    const png = await pngAttachment('chart.png');
    const sameCsv = { ...csv, name: 'copy of sales.csv' };
    await store.putAttachments([csv, png]);
    await store.putRun(runWithFiles('r1', [csv, png]));
    await store.putAttachments([sameCsv]);
    await store.putRun(runWithFiles('r2', [sameCsv]));
    // One copy of the CSV's bytes, however many runs use it.
    expect(await store.attachmentBytes()).toBe(csv.size + png.size);

    const r2 = (await store.getRun('r2'))?.run;
    const files = await store.getAttachments(r2?.attachments ?? []);
    expect(files.map((f) => [f.name, f.kind])).toEqual([['copy of sales.csv', 'csv']]);
    expect(files[0]?.kind === 'csv' && files[0].text).toBe('a,b\n1,2\n');

    await store.deleteRun('r1');
    // The image went with r1; the CSV stays for r2.
    expect(await store.attachmentBytes()).toBe(csv.size);
    expect(await store.getAttachments([{ ...png, name: 'chart.png' }])).toEqual([]);
    await store.deleteRun('r2');
    expect(await store.attachmentBytes()).toBe(0);
    store.close();
  });

  it('upgrades a version 2 database: its runs stay readable and files can be stored', async () => {
    const name = 'attachments-upgrade';
    const old = await openDB(name, 2, {
      upgrade(db) {
        const runs = db.createObjectStore('runs', { keyPath: 'id' });
        runs.createIndex('updatedAt', 'updatedAt');
        runs.createIndex('status', 'status');
        db.createObjectStore('steps', { keyPath: ['runId', 'index'] }).createIndex('runId', 'runId');
        const summaries = db.createObjectStore('summaries', { keyPath: 'id' });
        summaries.createIndex('updatedAt', ['updatedAt', 'id']);
        summaries.createIndex('problem', 'problem');
      },
    });
    await old.put('runs', runWithFiles('old', []));
    old.close();
    const store = await openRunStore(name);
    expect((await store.getRun('old'))?.run.question).toBe('Q?');
    const csv = await csvAttachment('a.csv', 'x\n');
    await store.putAttachments([csv]);
    await store.putRun(runWithFiles('new', [csv]));
    await store.deleteRun('old');
    expect(await store.attachmentBytes()).toBe(csv.size);
    store.close();
  });

  it('tells the user when the disk is full, and loses nothing: the run goes on', async () => {
    const csv = await csvAttachment('a.csv', 'x\n');
    const full = {
      putAttachments: async () => {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      },
    };
    expect(await keepRunFiles(full, [csv])).toBe(
      "The attached files could not be saved: this browser's storage for Baton is full. The run goes on with them; History will list it without their contents.",
    );
    expect(await keepRunFiles(full, [])).toBeUndefined();
  });
});
