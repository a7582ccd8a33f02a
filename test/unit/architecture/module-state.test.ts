/**
 * The page's state lives in one app state per page (src/app/app-state.ts, ARCHITECTURE.md), so two app
 * states (two tests, a bench page beside the app) share nothing and a test can build its own. A module-level
 * `let`, or a module-level signal, in the page's app or UI code is state outside it: this test names each.
 * Read with Vite's parser (oxc).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const FOLDERS = ['src/app', 'src/ui'];

/**
 * Module state that is not the app's: the service worker registration is the page's, one whatever the app
 * state; the others are caches of pure code (a date formatter, the lazily loaded Markdown renderer), the
 * same for every app state.
 */
const ALLOWED = new Set([
  'src/app/pwa.ts',
  'src/app/format.ts module-level let dateTime',
  'src/ui/Answer.tsx module-level let renderer',
  'src/ui/Answer.tsx module-level let loading',
]);

const STATE_CALLS = new Set(['signal', 'computed', 'effect', 'useSignal']);

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Top-level `let`/`var`, and top-level consts made by signal()/computed()/effect(), with their lines. */
function moduleStateOf(path: string, code = readFileSync(join(ROOT, path), 'utf8')): string[] {
  const { program, errors } = parseSync(path, code, { lang: path.endsWith('x') ? 'tsx' : 'ts' });
  if (errors.length > 0) throw new Error(`${path} does not parse: ${errors[0]?.message}`);
  const lineAt = (offset: number) => code.slice(0, offset).split('\n').length;
  const found: string[] = [];
  for (const statement of (program as unknown as { body: Node[] }).body) {
    const declaration =
      statement.type === 'ExportNamedDeclaration' ? (statement.declaration as Node | null) : statement;
    if (declaration?.type !== 'VariableDeclaration') continue;
    const kind = declaration.kind as string;
    for (const d of declaration.declarations as Node[]) {
      const name = (d.id as { name?: string }).name ?? '(pattern)';
      const init = d.init as Node | null;
      const callee = init?.type === 'CallExpression' ? (init.callee as { name?: string }).name : undefined;
      if (kind !== 'const') found.push(`${path}:${lineAt(d.start)} module-level ${kind} ${name}`);
      else if (callee && STATE_CALLS.has(callee))
        found.push(`${path}:${lineAt(d.start)} module-level ${callee}() ${name}`);
    }
  }
  return found;
}

describe('module state', () => {
  it('the app and UI code keep no state at module level: it belongs to the app state', () => {
    const files = FOLDERS.flatMap(filesUnder).filter((path) => !ALLOWED.has(path));
    expect(files.length).toBeGreaterThan(20);
    expect(
      files
        .flatMap((path) => moduleStateOf(path))
        .filter((found) => !ALLOWED.has(found.replace(/:\d+ /, ' '))),
    ).toEqual([]);
  });

  it('finds a module-level signal and let', () => {
    const code = 'export const a = signal(1);\nlet b = 2;\nconst c = 3;\nfunction f() { let d = signal(4); }';
    expect(moduleStateOf('x.ts', code)).toEqual([
      'x.ts:1 module-level signal() a',
      'x.ts:2 module-level let b',
    ]);
  });
});
