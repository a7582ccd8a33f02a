import { describe, expect, it } from 'vitest';
import { type FilePreview, passagesSent, tickPassage } from '../../../../src/app/runs/review-files.ts';

const passage = (n: number) => ({ n, place: `page ${n}`, start: 'Clause', chars: 100 });
const PREVIEW: FilePreview[] = [{ file: 0, passages: [passage(3), passage(9), passage(12)], total: 40 }];

describe('passagesSent', () => {
  it('is what the preview found while the user has ticked nothing', () => {
    expect(passagesSent([{ file: 0, find: 'notice period' }], PREVIEW, 0)).toEqual([3, 9, 12]);
    expect(passagesSent([0], [], 0)).toEqual([]);
  });

  it("is the user's ticks at once, before the preview of the new choice comes back", () => {
    // Unticked 9: the preview still lists it (it is recomputed for the new entry afterwards).
    const entries = [{ file: 0, passages: [3, 12] }];
    expect(passagesSent(entries, PREVIEW, 0)).toEqual([3, 12]);
  });

  it("reads the entry of the file asked for, not another file's", () => {
    expect(passagesSent([{ file: 1, passages: [1] }], PREVIEW, 0)).toEqual([3, 9, 12]);
  });
});

describe('tickPassage', () => {
  it("adds or takes one passage from those sent, keeps the entry's query, and leaves the file out once none is left", () => {
    const entries = [{ file: 0, find: 'notice period' }, 1];
    expect(tickPassage(entries, PREVIEW, 0, 9, false)).toEqual([
      { file: 0, find: 'notice period', passages: [3, 12] },
      1,
    ]);
    expect(tickPassage(entries, PREVIEW, 0, 5, true)).toEqual([
      { file: 0, find: 'notice period', passages: [3, 5, 9, 12] },
      1,
    ]);
    expect(tickPassage([{ file: 0, passages: [3] }, 1], PREVIEW, 0, 3, false)).toEqual([1]);
  });
});
