/**
 * The app's Content-Security-Policy, generated from the provider catalog (one source of truth for the
 * hosts the page may call), and how the page reads its parts back. The Vite plugin that puts it in the
 * built HTML is build-time code (build/csp-plugin.ts). Workers loaded from a URL take their policy from
 * their response headers, not from the page's meta; a `blob:` worker (wllama's) inherits its creator's.
 */
import { CATALOG, cloudOrigins, type ProviderPreset } from '../providers/catalog.ts';

/** Where the on-device engines download models and their wasm (no keys go there). */
export const MODEL_HOSTS = [
  'https://huggingface.co',
  'https://*.huggingface.co',
  'https://*.hf.co',
  'https://cdn-lfs.huggingface.co',
  'https://cdn-lfs-us-1.hf.co',
  'https://raw.githubusercontent.com',
] as const;

/** Local servers (Ollama, LM Studio, llama.cpp, vLLM) on any port of this machine. */
export const LOCAL_HOSTS = ['http://localhost:*', 'http://127.0.0.1:*'] as const;

/** Paths served with their own policy (the code-runner sandbox needs 'unsafe-eval' and forbids all network). */
export const OWN_POLICY_PATHS = ['/sandbox/'] as const;

export type Directives = Record<string, readonly string[]>;

export interface CspOptions {
  catalog?: readonly ProviderPreset[];
  /** More connect-src sources (custom hosts), e.g. from BATON_CONNECT_SRC. */
  extraConnectSrc?: readonly string[];
  /** Origins the page may frame besides its own: the code-runner sandbox's (BATON_SANDBOX_ORIGIN). */
  frameSrc?: readonly string[];
}

export function cspDirectives(options: CspOptions = {}): Directives {
  return {
    'default-src': ["'self'"],
    // No inline script, ever. 'wasm-unsafe-eval' lets wllama and WebLLM compile WebAssembly.
    'script-src': ["'self'", "'wasm-unsafe-eval'"],
    // wllama starts its own worker from a blob: URL.
    'worker-src': ["'self'", 'blob:'],
    // The code-runner sandbox, from this origin or from its own (src/sandbox/code-runner.ts).
    'frame-src': ["'self'", ...(options.frameSrc ?? [])],
    'connect-src': [
      "'self'",
      ...cloudOrigins(options.catalog ?? CATALOG),
      ...MODEL_HOSTS,
      ...LOCAL_HOSTS,
      ...(options.extraConnectSrc ?? []),
    ],
    // Styles come from our CSS files; components set styles through the CSSOM, which CSP allows.
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
}

/** Directives a `<meta>` policy ignores (with a console warning), so they go in the header only. */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

export function serializeCsp(directives: Directives, target: 'meta' | 'header'): string {
  return Object.entries(directives)
    .filter(([name]) => target === 'header' || !HEADER_ONLY.has(name))
    .map(([name, sources]) => [name, ...new Set(sources)].join(' '))
    .join('; ');
}

/**
 * Parses BATON_CONNECT_SRC: sources separated by spaces or commas, each an http(s) origin, optionally with
 * a `*.` host wildcard or a `:*` port (`https://llm.example.com`, `https://*.example.com`,
 * `http://192.168.1.20:11434`). Throws on anything else, so a typo cannot widen or break the policy.
 */
export function parseConnectSrc(value: string | undefined): string[] {
  if (!value?.trim()) return [];
  const sources = value.split(/[\s,]+/).filter(Boolean);
  for (const source of sources) {
    if (!/^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(\[[0-9a-fA-F:]+\])?(:(\d{1,5}|\*))?\/?$/.test(source)) {
      throw new Error(
        `BATON_CONNECT_SRC: "${source}" is not an http(s) origin like https://llm.example.com or http://192.168.1.20:11434`,
      );
    }
  }
  return sources.map((s) => s.replace(/\/$/, ''));
}

/**
 * Parses BATON_SANDBOX_ORIGIN, the origin that serves the code-runner sandbox (`/sandbox/code-runner.html`)
 * when it is not this app's: an http(s) origin with no path (`https://sandbox.example.net`). Throws on
 * anything else, so a typo cannot leave code answers without a runner.
 */
export function parseSandboxOrigin(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  const trimmed = value.trim().replace(/\/$/, '');
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== trimmed) {
    throw new Error(
      `BATON_SANDBOX_ORIGIN: "${value}" is not an http(s) origin like https://sandbox.example.net (no path)`,
    );
  }
  return url.origin;
}
