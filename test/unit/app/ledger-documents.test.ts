import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { documentNames, documentsOut, namesOf } from '../../../src/app/ledger-documents.ts';
import { createLedgerView } from '../../../src/app/ledger-view.ts';
import { type NewLedgerEntry, openLedger } from '../../../src/egress/ledger.ts';
import { openRunStore } from '../../../src/records/run-store.ts';
import { csvAttachment, pdfAttachment, runWithFiles } from '../../fixtures/attachments.ts';

const unique = (what: string) => `${what}-${crypto.randomUUID()}`;

describe('documentsOut', () => {
  it('names each document by its run’s name for it, else by its hash’s start, most bytes first', () => {
    const names = new Map([['aaaa1111bbbb', 'contract.pdf']]);
    expect(documentsOut({ ccccdddd9999: 300, aaaa1111bbbb: 4200 }, names)).toEqual([
      { id: 'aaaa1111bbbb', name: 'contract.pdf', bytes: 4200 },
      { id: 'ccccdddd9999', name: 'file ccccdddd', bytes: 300 },
    ]);
  });

  it('shows nothing for a request without documents, or counts that are not counts (an imported ledger)', () => {
    expect(documentsOut(undefined, new Map())).toEqual([]);
    expect(
      documentsOut({ a: Number.NaN, b: -1, c: '12' as unknown as number, d: 5 }, new Map()).map((d) => d.id),
    ).toEqual(['d']);
  });
});

describe('documentNames', () => {
  it('reads each run carrying documents once, and a run that cannot be read names nothing', async () => {
    const asked: string[] = [];
    const names = await documentNames(
      [
        { runId: 'r1', documentBytes: { h1: 10 } },
        { runId: 'r1', documentBytes: { h2: 10 } },
        { runId: 'r2' },
        { runId: 'gone', documentBytes: { h3: 1 } },
      ],
      async (id) => {
        asked.push(id);
        if (id === 'gone') throw new Error('deleted');
        return [
          { id: 'h1', name: 'a.pdf', kind: 'pdf', mime: 'application/pdf', size: 1 },
          { id: 'h2', name: 'b.csv', kind: 'csv', mime: 'text/csv', size: 1 },
        ];
      },
    );
    expect(asked).toEqual(['r1', 'gone']);
    expect([...names]).toEqual([
      ['h1', 'a.pdf'],
      ['h2', 'b.csv'],
    ]);
    expect(namesOf(undefined).size).toBe(0);
  });
});

describe('the ledger view', () => {
  const entry = (time: number, extra: Partial<NewLedgerEntry>): NewLedgerEntry => ({
    time,
    purpose: 'chat',
    providerId: 'openai',
    host: 'api.openai.com',
    method: 'POST',
    path: '/v1/chat/completions',
    sent: true,
    keyAttached: true,
    state: 'done',
    status: 200,
    bytesOut: 5000,
    bytesIn: 20,
    ...extra,
  });

  it('names the documents its page’s requests carried, from their runs in the run store', async () => {
    const pdf = await pdfAttachment('contract.pdf', ['Page one.']);
    const csv = await csvAttachment('rows.csv', 'a\n1');
    const store = await openRunStore(unique('ledger-names-runs'));
    await store.putRun(runWithFiles('run-1', [pdf, csv]));
    const ledger = await openLedger(unique('ledger-names'));
    await ledger.add(entry(1, { runId: 'run-1', documentBytes: { [pdf.id]: 4000, [csv.id]: 12 } }));
    await ledger.add(entry(2, { runId: 'run-deleted', documentBytes: { ffff0000ffff: 7 } }));
    const view = createLedgerView({ ledger: async () => ledger, runStore: async () => store });
    const close = view.open();
    await expect.poll(() => view.names.value.size).toBe(2);
    const [newest, oldest] = view.page.value?.entries ?? [];
    expect(documentsOut(oldest?.documentBytes, view.names.value).map((d) => d.name)).toEqual([
      'contract.pdf',
      'rows.csv',
    ]);
    expect(documentsOut(newest?.documentBytes, view.names.value).map((d) => d.name)).toEqual([
      'file ffff0000',
    ]);
    close();
  });
});
