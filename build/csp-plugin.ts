/**
 * The Vite plugin that puts the app's Content-Security-Policy (src/security/csp.ts) in the built HTML as a
 * `<meta>` and on every `vite preview` and dev-server response as a header. Build-time code: the page
 * never loads it.
 */
import type { Plugin } from 'vite';
import {
  type CspOptions,
  cspDirectives,
  type Directives,
  OWN_POLICY_PATHS,
  serializeCsp,
} from '../src/security/csp.ts';

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
