import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The runner page allows exactly its own inline script, by hash: an edit that forgets the hash would leave a
// runner that never starts (every code item would fail with "did not start").
const html = readFileSync(resolve(import.meta.dirname, '../../../public/sandbox/code-runner.html'), 'utf8');
const policy = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html)?.[1] ?? '';
const directives = new Map(
  policy.split(';').map((d) => {
    const [name, ...sources] = d.trim().split(/\s+/);
    return [name ?? '', sources] as const;
  }),
);

describe('public/sandbox/code-runner.html', () => {
  it("allows its one inline script by hash and nothing from any origin, not even its own ('self')", () => {
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(scripts).toHaveLength(1);
    expect(html.match(/<script\b/g)).toHaveLength(1);
    const hash = `'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`;
    expect(directives.get('script-src'), `put ${hash} in the page's script-src`).toEqual([
      hash,
      "'unsafe-eval'",
      // Pyodide: its modules are imported from blob: URLs the frame makes of the bytes the page hands in.
      "'wasm-unsafe-eval'",
      'blob:',
    ]);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'none'"]);
    // The answer's worker is a blob: worker, so it inherits exactly this policy.
    expect(directives.get('worker-src')).toEqual(['blob:']);
    expect(policy).not.toContain("'self'");
  });
});
