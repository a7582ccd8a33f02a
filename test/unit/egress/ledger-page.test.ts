import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { LEDGER_PAGE_SIZE, type NewLedgerEntry, openLedger } from '../../../src/egress/ledger.ts';

const entry = (i: number): NewLedgerEntry => ({
  time: 1_000 + i,
  purpose: 'chat',
  providerId: 'test',
  host: `h${i}.example`,
  method: 'POST',
  path: '/v1/chat/completions',
  sent: true,
  keyAttached: false,
  state: 'done',
  bytesOut: i,
  bytesIn: 0,
});

describe('ledger pages', () => {
  it('pages newest first, 100 at a time, to the oldest', async () => {
    const ledger = await openLedger('ledger-pages-1');
    for (let i = 0; i < 250; i++) await ledger.add(entry(i));
    const first = await ledger.page();
    expect(LEDGER_PAGE_SIZE).toBe(100);
    expect(first.total).toBe(250);
    expect(first.entries).toHaveLength(100);
    expect(first.entries[0]?.host).toBe('h249.example');
    expect(first.entries.at(-1)?.host).toBe('h150.example');
    const second = await ledger.page({ before: first.nextBefore! });
    expect(second.entries.map((e) => e.host).slice(0, 1)).toEqual(['h149.example']);
    const third = await ledger.page({ before: second.nextBefore! });
    expect(third.entries).toHaveLength(50);
    expect(third.entries.at(-1)?.host).toBe('h0.example');
    expect(third.nextBefore).toBeUndefined();
    ledger.close();
  });

  it('an empty ledger is one empty page; a page of exactly the size has no next page', async () => {
    const ledger = await openLedger('ledger-pages-2');
    expect(await ledger.page()).toEqual({ entries: [], total: 0 });
    for (let i = 0; i < 3; i++) await ledger.add(entry(i));
    const page = await ledger.page({ size: 3 });
    expect(page.entries).toHaveLength(3);
    expect(page.nextBefore).toBeUndefined();
    ledger.close();
  });
});
