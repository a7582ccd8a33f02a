/**
 * The app's Content-Security-Policy, generated from the provider catalog (one source of truth for the
 * hosts the page may call), and the Vite plugin that puts it in the built HTML as a `<meta>` and on every
 * `vite preview` response as a header. Workers loaded from a URL take their policy from their response
 * headers, not from the page's meta; a `blob:` worker (wllama's) inherits its creator's.
 */
import type { Plugin } from 'vite';
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

const escapeAttr = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

/**
 * Puts the policy right after `<meta charset>` (which must stay in the first 1024 bytes), so it comes
 * before every script and stylesheet of the page; at the top of <head> when there is no charset.
 */
export function injectMeta(html: string, policy: string): string {
  const tag = `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(policy)}" />`;
  const charset = /<meta\s+charset=[^>]*>/i;
  if (charset.test(html)) return html.replace(charset, (m) => `${m}\n    ${tag}`);
  return html.replace(/<head[^>]*>/i, (m) => `${m}\n    ${tag}`);
}

/**
 * The build's policy with what Vite's dev server needs and nothing more, so a host the build would block
 * is blocked in development too: `'unsafe-inline'` styles (the dev client injects each CSS module as a
 * `<style>` element; the build links CSS files), and the HMR websocket's origin in connect-src (`'self'`
 * covers a same-host ws: URL in CSP Level 3 browsers, not in older Safari). No script allowance: the dev
 * client is an external module and uses no eval.
 */
export function devDirectives(directives: Directives, websocketOrigin?: string): Directives {
  return {
    ...directives,
    'style-src': [...(directives['style-src'] ?? []), "'unsafe-inline'"],
    'connect-src': [...(directives['connect-src'] ?? []), ...(websocketOrigin ? [websocketOrigin] : [])],
  };
}

/**
 * The HMR websocket's origin: the host and port the page was loaded from (vite.config.ts sets no
 * `server.hmr`). Only a plain host[:port] is taken, since it ends up inside the policy's text.
 */
export function websocketOrigin(host: string | undefined, secure: boolean): string | undefined {
  if (!host || !/^[\w.-]+(:\d+)?$|^\[[\da-f:]+\](:\d+)?$/i.test(host)) return undefined;
  return `${secure ? 'wss:' : 'ws:'}//${host}`;
}

/** Whether the app's policy goes on a response for `path` (not on pages that carry their own). */
function takesAppPolicy(path: string): boolean {
  return !OWN_POLICY_PATHS.some((p) => path.startsWith(p));
}

/**
 * Injects the policy into every built HTML page (see injectMeta), and sends it as a header from
 * `vite preview` and from the dev server (`npm start`, with devDirectives), except under
 * OWN_POLICY_PATHS.
 */
export function cspPlugin(options: CspOptions = {}): Plugin {
  const directives = cspDirectives(options);
  const meta = serializeCsp(directives, 'meta');
  const header = serializeCsp(directives, 'header');
  return {
    name: 'baton-csp',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (ctx.server) return html;
        return injectMeta(html, meta);
      },
    },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        if (takesAppPolicy(req.url ?? '/')) res.setHeader('Content-Security-Policy', header);
        next();
      });
    },
    configureServer(server) {
      const secure = Boolean(server.config.server.https);
      server.middlewares.use((req, res, next) => {
        const policy = devDirectives(directives, websocketOrigin(req.headers.host, secure));
        if (takesAppPolicy(req.url ?? '/'))
          res.setHeader('Content-Security-Policy', serializeCsp(policy, 'header'));
        next();
      });
    },
  };
}
