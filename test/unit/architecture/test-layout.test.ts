/**
 * Unit-test folders mirror the source folders: test/unit/<folder>/ tests src/<folder>/ (or workers/… for
 * the thread), so a source file's tests are found by its path. The few folders that test something else
 * say what, here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const UNIT = join(ROOT, 'test/unit');

/** Folders of test/unit that test no folder of src/ or workers/, and what they test instead. */
const OTHER: Record<string, string> = {
  architecture: 'the tree itself (import directions, this layout)',
  'test-provider': 'the test provider, test/provider/',
  tooling: 'the scripts in test/ (Chromium setup)',
};

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return [relative(UNIT, path), ...folders(path)];
    });
}

/** The source folder a test folder mirrors, if there is one. */
function sourceFolder(testFolder: string): string | undefined {
  const candidates = testFolder.startsWith('workers') ? [testFolder] : [join('src', testFolder)];
  return candidates.find((candidate) => existsSync(join(ROOT, candidate)));
}

describe('unit-test folders', () => {
  it('each mirror a source folder, or say what they test', () => {
    const stray = folders(UNIT).filter(
      (folder) => !((folder.split('/')[0] ?? '') in OTHER) && !sourceFolder(folder),
    );
    expect(stray).toEqual([]);
  });
});
