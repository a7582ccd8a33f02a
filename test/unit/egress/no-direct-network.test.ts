/**
 * "No other code calls the network": every request of ours goes through src/egress/. This scans src/ and
 * workers/ for the ways a page or worker can send something, outside src/egress/ and an explicit,
 * reasoned allow-list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

const RULES: { name: string; pattern: RegExp }[] = [
  // A bare `fetch(` (not a method of another object, like `egress.fetch(`), or the global one by name.
  { name: 'fetch', pattern: /(^|[^.\w$])fetch\s*\(/m },
  { name: 'global fetch', pattern: /\b(globalThis|window|self)\.fetch\b/ },
  { name: 'XMLHttpRequest', pattern: /\bXMLHttpRequest\b/ },
  { name: 'WebSocket', pattern: /\bnew\s+WebSocket\b/ },
  { name: 'EventSource', pattern: /\bnew\s+EventSource\b/ },
  { name: 'sendBeacon', pattern: /\bsendBeacon\b/ },
  { name: 'image beacon', pattern: /\bnew\s+Image\s*\(/ },
  { name: 'importScripts', pattern: /\bimportScripts\s*\(/ },
  // The openai SDK falls back to the global fetch when it is not given one.
  { name: 'openai client', pattern: /\bnew\s+OpenAI\s*\(/ },
];

/** Files that may use a rule, and why. Everything else must go through egress. */
const ALLOWED: Record<string, { rules: string[]; reason: string }> = {
  'workers/engines/wllama.ts': {
    rules: ['fetch'],
    reason:
      'downloads the on-device GGUF model from a model host (Hugging Face, or a URL the user chose): no key, no provider, and no prompt in it',
  },
  'workers/engines/local-server.ts': {
    rules: ['openai client'],
    reason:
      'the local planner engine builds the openai client with the fetch the thread injects (reported to the ledger as local planning), and only for a loopback base URL',
  },
  'workers/fetch.worker.ts': {
    rules: ['fetch'],
    reason:
      "egress's network thread: it sends only the requests egress on the page has checked, keyed and recorded in the ledger (src/shared/fetch-relay.ts), and only egress starts it (src/egress/fetch-thread.ts)",
  },
  'src/sandbox/code-runner.ts': {
    rules: ['fetch'],
    reason:
      "fetches Pyodide's files from this site's own build (assets/pyodide/) to hand them to the code sandbox, which has no network: no key, no provider, no prompt, and no other host",
  },
  'src/providers/openai-transport.ts': {
    rules: ['openai client'],
    reason:
      'builds the openai client with the fetch it must be given (egress in the app), never the global one. Every caller injects one (checked below).',
  },
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Drops comments (so prose about `fetch(` does not count); keeps `//` inside URLs in strings. */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Calls of createOpenAITransport whose options do not mention `fetch` (the SDK would use the global one). */
function transportsWithoutFetch(code: string): string[] {
  const calls = stripComments(code).matchAll(/(?<!function\s)createOpenAITransport\s*\(([^)]*)\)/g);
  return [...calls].filter((call) => !/\bfetch\b/.test(call[1] ?? '')).map((call) => call[0].slice(0, 80));
}

function violations(code: string): string[] {
  const text = stripComments(code);
  return RULES.filter((rule) => rule.pattern.test(text)).map((rule) => rule.name);
}

describe('no direct network access outside src/egress/', () => {
  const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'workers'))].map((f) =>
    relative(ROOT, f).replaceAll('\\', '/'),
  );

  it('finds every kind of request it is meant to find (the scanner itself works)', () => {
    const samples = [
      'await fetch(url)',
      'globalThis.fetch',
      'new XMLHttpRequest()',
      'new WebSocket("wss://x")',
      'new EventSource("/s")',
      'navigator.sendBeacon("/b", data)',
      'new Image().src = u',
      'importScripts("https://x/y.js")',
      'new OpenAI({ apiKey })',
    ];
    expect(samples.map((s) => violations(s)[0])).toEqual(RULES.map((r) => r.name));
    expect(violations('egress.fetch(url); // fetch(x)\n/* fetch( */ const u = "https://a.b/c";')).toEqual([]);
  });

  it('scans a real tree', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files).toContain('src/egress/egress.ts');
  });

  it('has no request outside src/egress/ but the allow-listed ones', () => {
    const found: string[] = [];
    for (const file of files) {
      if (file.startsWith('src/egress/')) continue;
      const allowed = ALLOWED[file]?.rules ?? [];
      for (const rule of violations(readFileSync(join(ROOT, file), 'utf8'))) {
        if (!allowed.includes(rule)) found.push(`${file}: ${rule}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('every place that builds the openai transport injects a fetch', () => {
    expect(transportsWithoutFetch('createOpenAITransport()')).toHaveLength(1);
    expect(transportsWithoutFetch('createOpenAITransport({ headers })')).toHaveLength(1);
    expect(transportsWithoutFetch('createOpenAITransport({ fetch: egress.fetch })')).toEqual([]);
    expect(transportsWithoutFetch('export function createOpenAITransport(options = {})')).toEqual([]);
    const missing = files.flatMap((file) =>
      transportsWithoutFetch(readFileSync(join(ROOT, file), 'utf8')).map((call) => `${file}: ${call}`),
    );
    expect(missing).toEqual([]);
  });
});
