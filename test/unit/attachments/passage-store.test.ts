import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { choosePassages } from '../../../src/attachments/passage-index.ts';
import { createPassageLibrary, openPassagesDb } from '../../../src/attachments/passage-store.ts';
import { pdfAttachment } from '../../fixtures/attachments.ts';
import { CLAUSE_7_PAGE, contractPages } from '../../fixtures/contract.ts';

describe('the passage library', () => {
  it('stores an index by the file’s hash and reads it back in another library', async () => {
    const pdf = await pdfAttachment('contract.pdf', contractPages(60));
    const first = await createPassageLibrary().indexFor(pdf);
    const db = await openPassagesDb();
    const stored = await db.get('indexes', pdf.id);
    db.close();
    expect(stored?.passages).toEqual(first.passages);
    const again = await createPassageLibrary().indexFor(pdf);
    expect(choosePassages(again.search, again.passages, 'termination notice').passages).toEqual(
      choosePassages(first.search, first.passages, 'termination notice').passages,
    );
  });

  it('gives an edited file attached again its own index (another hash)', async () => {
    const library = createPassageLibrary();
    const before = await library.indexFor(await pdfAttachment('c.pdf', contractPages(50)));
    const pages = contractPages(50);
    pages[CLAUSE_7_PAGE - 1] = 'Clause 7 was struck out.';
    const after = await library.indexFor(await pdfAttachment('c.pdf', pages));
    expect(after.passages).not.toEqual(before.passages);
    expect(after.passages.find((p) => p.page === CLAUSE_7_PAGE)?.text).toBe('Clause 7 was struck out.');
  });

  it('builds the index when it cannot be stored (disk full) and says so; nothing is lost', async () => {
    const full = async () => {
      const db = await openPassagesDb('baton-passages-full');
      return Object.assign(Object.create(db), {
        get: async () => undefined,
        put: async () => {
          throw new DOMException('', 'QuotaExceededError');
        },
      }) as typeof db;
    };
    const library = createPassageLibrary(full);
    const pdf = await pdfAttachment('contract.pdf', contractPages(30));
    const indexed = await library.indexFor(pdf);
    expect(indexed.passages.length).toBeGreaterThan(0);
    expect(library.storeProblem).toBe(
      `The index of "contract.pdf" was not saved (this browser's storage for Baton is full): it is built again when needed.`,
    );
  });

  it('refuses a PDF without a text layer, saying passages need one', async () => {
    const scan = await pdfAttachment('scan.pdf', ['', ' ']);
    await expect(createPassageLibrary(undefined).indexFor(scan)).rejects.toThrow(
      '"scan.pdf" has no text layer (a scanned PDF): passages need one. Send it whole to a worker that takes images, or attach a copy with its text.',
    );
  });
});
