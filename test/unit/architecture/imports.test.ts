/**
 * Imports go one way (ARCHITECTURE.md): the page (src/ outside src/shared/) and the thread (workers/) each
 * import src/shared/, never each other, except the page's `import type` of the thread's API; src/shared/
 * imports neither side, so it compiles under both `lib: dom` and `lib: webworker`. And src/providers/ does
 * not import src/egress/, which is built on it. The core (what runs a question: executor, evaluation,
 * conductor, egress, providers, shared, attachments, records) never imports the app or its views, and no
 * two folders import each other, directly or round a loop, so each folder can be read knowing only those
 * below it. Read with Vite's parser (oxc), so a type-only import is told from one that loads code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The one file of the thread the page may name, and only with `import type`: the thread's API. */
const THREAD_API = 'workers/conductor.worker.ts';

type Side = 'page' | 'thread' | 'shared' | 'build' | 'outside';

/** What runs a question, below the app and its views. */
const CORE = [
  'src/executor/',
  'src/evaluation/',
  'src/conductor/',
  'src/egress/',
  'src/providers/',
  'src/shared/',
  'src/attachments/',
  'src/records/',
];

function sideOf(path: string): Side {
  if (path.startsWith('build/')) return 'build';
  if (path.startsWith('src/shared/')) return 'shared';
  if (path.startsWith('src/')) return 'page';
  if (path.startsWith('workers/')) return 'thread';
  return 'outside';
}

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

const literal = (value: unknown): string | undefined =>
  isNode(value) && value.type === 'Literal' && typeof value.value === 'string' ? value.value : undefined;

/** Every module a file names: import/export declarations, `import()` calls and `import('…')` types. */
function importsOf(fileName: string, code: string): ImportRef[] {
  const { program, errors } = parseSync(fileName, code, { lang: fileName.endsWith('x') ? 'tsx' : 'ts' });
  if (errors.length > 0) throw new Error(`${fileName} does not parse: ${errors[0]?.message}`);
  const lineAt = (offset: number) => code.slice(0, offset).split('\n').length;
  const refs: ImportRef[] = [];
  const add = (node: Node, specifier: string | undefined, typeOnly: boolean) => {
    if (specifier !== undefined) refs.push({ specifier, typeOnly, line: lineAt(node.start) });
  };
  const visit = (node: Node) => {
    // Only `import type` / `export type` load nothing: under verbatimModuleSyntax, `import { type A }` is
    // kept as `import {}`, which still runs the module.
    if (node.type === 'ImportDeclaration') add(node, literal(node.source), node.importKind === 'type');
    else if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration')
      add(node, literal(node.source), node.exportKind === 'type');
    else if (node.type === 'ImportExpression') add(node, literal(node.source), false);
    else if (node.type === 'TSImportType')
      add(node, literal((node.argument as Node | undefined)?.literal ?? node.source ?? node.argument), true);
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) isNode(item) && visit(item);
      else if (isNode(value)) visit(value);
    }
  };
  visit(program as unknown as Node);
  return refs;
}

/** Why `from` may not import `to` (both paths from the root), or undefined when it may. */
function ruleBroken(from: string, to: string, typeOnly: boolean): string | undefined {
  const a = sideOf(from);
  const b = sideOf(to);
  if (a === 'shared' && b !== 'shared') {
    return 'src/shared/ is compiled for both threads, so it imports only src/shared/';
  }
  if (a === 'page' && b === 'thread' && !(typeOnly && to === THREAD_API)) {
    return `page code imports thread code (only \`import type\` of ${THREAD_API}, the thread's API, is allowed)`;
  }
  if (a === 'thread' && b === 'page') return 'thread code imports page code (share it through src/shared/)';
  if ((a === 'page' || a === 'thread' || a === 'shared') && b === 'build') {
    return 'code that runs in the browser imports build/, which only the build (vite.config.ts) runs';
  }
  if (CORE.some((dir) => from.startsWith(dir)) && (to.startsWith('src/app/') || to.startsWith('src/ui/'))) {
    return 'the core imports the app (src/app/, src/ui/), which is built on it: move what both need down';
  }
  if (from.startsWith('src/providers/') && to.startsWith('src/egress/')) {
    return 'src/providers/ imports src/egress/, which is built on it (requests made through egress live in src/egress/)';
  }
  return undefined;
}

/** Every broken rule in `files` (path from the root → source text), as "file:line → target: why". */
function violations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, code] of Object.entries(files)) {
    for (const ref of importsOf(file, code)) {
      if (!ref.specifier.startsWith('.')) continue; // packages
      const target = join(dirname(file), ref.specifier).split('?')[0] ?? '';
      const why = ruleBroken(file, target, ref.typeOnly);
      if (why) found.push(`${file}:${ref.line} → ${target}: ${why}`);
    }
  }
  return found;
}

/**
 * The folder of `src/` (or `workers`) a file belongs to, subfolders included: a folder's parts may use each
 * other, but two folders may not.
 */
function folderOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  return parts[0] ?? path;
}

/**
 * Every loop between groups of files (folders with `folderOf`, files with the identity), each as one
 * import per hop round it ("a.ts:3 → b.ts"), so the message says which import to move. Type-only imports
 * count: they tie the two ends' meaning as much.
 */
function loops(files: Record<string, string>, groupOf: (path: string) => string): string[][] {
  const hops = new Map<string, Map<string, string>>();
  for (const [file, code] of Object.entries(files)) {
    for (const ref of importsOf(file, code)) {
      if (!ref.specifier.startsWith('.')) continue;
      const target = join(dirname(file), ref.specifier).split('?')[0] ?? '';
      const [a, b] = [groupOf(file), groupOf(target)];
      if (a === b) continue;
      const out = hops.get(a) ?? new Map<string, string>();
      if (!out.has(b)) out.set(b, `${file}:${ref.line} → ${target}`);
      hops.set(a, out);
    }
  }
  // Tarjan's strongly connected components: a component of more than one folder is a loop.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of hops.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length < 2) return;
    const inside = new Set(component);
    found.push(
      component
        .sort()
        .flatMap((a) => [...(hops.get(a) ?? [])].filter(([b]) => inside.has(b)).map(([, hop]) => hop)),
    );
  };
  for (const v of [...hops.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) out.push(path);
  }
  return out;
}

function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'workers'))]) {
    files[relative(ROOT, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

describe('import directions', () => {
  it('hold across src/ and workers/', () => {
    const files = tree();
    expect(Object.keys(files)).toContain('src/main.ts');
    expect(Object.keys(files)).toContain(THREAD_API);
    expect(violations(files)).toEqual([]);
  });

  it('make no loop between folders, nor between files', () => {
    const files = tree();
    expect(loops(files, folderOf)).toEqual([]);
    expect(loops(files, (path) => path)).toEqual([]);
  });

  it('find a loop between folders, however long, and name an import of each hop', () => {
    const found = loops(
      {
        'src/executor/store.ts': "import { AttachmentRefSchema } from '../attachments/store.ts';",
        'src/attachments/store.ts': "import type { RunsDB } from '../egress/db.ts';",
        'src/egress/db.ts': "import { x } from '../executor/types.ts';",
        'src/pool/store.ts': "import { CATALOG } from '../providers/catalog.ts';",
        'src/providers/catalog.ts': "import { y } from '../shared/plan/schema.ts';",
      },
      folderOf,
    );
    expect(found).toEqual([
      [
        'src/attachments/store.ts:1 → src/egress/db.ts',
        'src/egress/db.ts:1 → src/executor/types.ts',
        'src/executor/store.ts:1 → src/attachments/store.ts',
      ],
    ]);
  });

  it('keep the core from importing the app and its views', () => {
    const found = violations({
      'src/executor/spend-limit.ts': "import { formatCost } from '../app/format.ts';",
      'src/conductor/bridge.ts': "import type { Channel } from '../app/async-channel.ts';",
      'src/records/runs.ts': "import { x } from '../ui/StepCard.tsx';",
      'src/app/format.ts': "import type { Estimator } from '../shared/token-estimate.ts';",
    });
    expect(found.map((line) => line.split(' → ')[0])).toEqual([
      'src/executor/spend-limit.ts:1',
      'src/conductor/bridge.ts:1',
      'src/records/runs.ts:1',
    ]);
    expect(found[0]).toContain('the core imports the app');
  });

  it('keep build-time code (build/) out of the page and the thread', () => {
    const found = violations({
      'src/main.ts': "import { cspPlugin } from '../build/csp-plugin.ts';",
      'workers/engine-host.ts': "import { ENGINE_CACHE } from '../build/engine-assets.ts';",
      'build/csp-plugin.ts': "import { cspDirectives } from '../src/security/csp.ts';",
    });
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('imports build/');
  });

  it('allow the page only `import type` of the thread API', () => {
    const page = 'src/conductor/bridge.ts';
    expect(
      violations({ [page]: "import type { ConductorApi } from '../../workers/conductor.worker.ts';" }),
    ).toEqual([]);
    // Kept as `import {}` under verbatimModuleSyntax: it would load the thread's code into the page.
    expect(
      violations({ [page]: "import { type ConductorApi } from '../../workers/conductor.worker.ts';" }),
    ).toHaveLength(1);
    const value = violations({ [page]: "import { api } from '../../workers/conductor.worker.ts';" });
    expect(value).toHaveLength(1);
    expect(value[0]).toContain('page code imports thread code');
    const other = violations({
      [page]: "import type { ConductorEngine } from '../../workers/engines/engine.ts';",
    });
    expect(other).toHaveLength(1);
  });

  it('catch every form of import across the sides', () => {
    const found = violations({
      'src/ui/Panel.tsx': [
        "import { EngineHost } from '../../workers/engine-host.ts';",
        "export { sameModel } from '../../workers/engines/engine.ts';",
        "const host = await import('../../workers/engine-host.ts');",
        "type Ref = import('../../workers/engines/engine.ts').ModelRef;",
      ].join('\n'),
      'workers/engine-host.ts': "import { runs } from '../src/app/runs/runs.ts';",
      'src/shared/plan/parse.ts': [
        "import { WorkerSpec } from '../../pool/types.ts';",
        "import type { ConductorEngine } from '../../../workers/engines/engine.ts';",
      ].join('\n'),
      'src/providers/discovery.ts': "import type { Egress } from '../egress/egress.ts';",
    });
    expect(found.map((line) => line.split(' → ')[0])).toEqual([
      'src/ui/Panel.tsx:1',
      'src/ui/Panel.tsx:2',
      'src/ui/Panel.tsx:3',
      'src/ui/Panel.tsx:4',
      'workers/engine-host.ts:1',
      'src/shared/plan/parse.ts:1',
      'src/shared/plan/parse.ts:2',
      'src/providers/discovery.ts:1',
    ]);
  });

  it('let each side import src/shared/ and packages', () => {
    expect(
      violations({
        'src/ui/ConductorSetup.tsx': "import type { ModelRef } from '../shared/model.ts';",
        'workers/engine-host.ts': "import { parsePlan } from '../src/shared/plan/index.ts';",
        'workers/engines/wllama.ts': "import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';",
        'src/shared/plan/schema.ts':
          "import { z } from 'zod';\nimport { SELF_WORKER } from '../worker-ids.ts';",
      }),
    ).toEqual([]);
  });
});
