/**
 * Every browser spec takes Playwright's `test` and `expect` from test/browser/app-test.ts, whose context
 * has the "steps open" setting the specs were written for: a spec importing them from '@playwright/test'
 * would run with the app's answer-first default instead, and fail (or pass) for a reason nobody chose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BROWSER = resolve(import.meta.dirname, '../../browser');

/** The value imports from '@playwright/test' in `source` (type-only imports carry no fixture). */
function playwrightValueImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@playwright\/test'/g)) {
    if (match[1]) continue;
    const names = (match[2] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith('type '));
    found.push(...names);
  }
  return found;
}

/**
 * The pages and contexts `source` makes of the browser itself (`browser.newPage`, `browser.newContext`) whose
 * next two lines do not open the steps by default: they have none of app-test.ts's context (Playwright's
 * storageState reached them; its init script does not), so a spec looking into step cards there fails.
 */
function ownContextsWithoutSteps(source: string): number[] {
  const lines = source.split('\n');
  return lines.flatMap((line, i) =>
    /browser\.new(Page|Context)\(/.test(line) &&
    !lines.slice(i + 1, i + 3).some((next) => next.includes('openStepsByDefault('))
      ? [i + 1]
      : [],
  );
}

describe('browser specs', () => {
  it('a value import from @playwright/test is found, a type-only one is not', () => {
    expect(playwrightValueImports("import { expect, type Page, test } from '@playwright/test';")).toEqual([
      'expect',
      'test',
    ]);
    expect(playwrightValueImports("import type { Page } from '@playwright/test';")).toEqual([]);
    expect(playwrightValueImports("import { expect, test } from './app-test.ts';")).toEqual([]);
  });

  it('take test and expect from app-test.ts, not from @playwright/test', () => {
    const specs = readdirSync(BROWSER).filter((name) => name.endsWith('.spec.ts'));
    expect(specs.length).toBeGreaterThan(0);
    const stray = specs.flatMap((name) => {
      const names = playwrightValueImports(readFileSync(join(BROWSER, name), 'utf8')).filter(
        (imported) => imported === 'test' || imported === 'expect',
      );
      return names.length ? [`${name}: ${names.join(', ')}`] : [];
    });
    expect(stray).toEqual([]);
  });

  it('open the steps by default in the pages and contexts they make themselves', () => {
    expect(ownContextsWithoutSteps('const page = await browser.newPage();\nawait page.goto(url);')).toEqual([
      1,
    ]);
    expect(
      ownContextsWithoutSteps(
        'const page = await browser.newPage();\nawait openStepsByDefault(page.context());',
      ),
    ).toEqual([]);
    const files = readdirSync(BROWSER).filter(
      (name) => name.endsWith('.ts') && name !== 'app-test.ts' && name !== 'steps-open.ts',
    );
    const bare = files.flatMap((name) =>
      ownContextsWithoutSteps(readFileSync(join(BROWSER, name), 'utf8')).map((line) => `${name}:${line}`),
    );
    expect(bare).toEqual([]);
  });
});
