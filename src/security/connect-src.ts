/**
 * Whether the page's Content-Security-Policy lets it reach a URL, read from the connect-src list the
 * build wrote (vite.config.ts defines it from src/security/csp.ts), so the place where the user types a
 * host can say that it needs BATON_CONNECT_SRC before a request is refused.
 */

/** The connect-src sources of this build's policy; undefined where there is none (unit tests). */
export function pageConnectSrc(): readonly string[] | undefined {
  const value: unknown = import.meta.env?.BATON_CONNECT_SRC;
  return Array.isArray(value) && value.every((s) => typeof s === 'string') ? value : undefined;
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

/** One source expression of connect-src against `url`, as CSP Level 3 matches a host source. */
function sourceMatches(source: string, url: URL, pageOrigin: string): boolean {
  if (source === "'self'") return url.origin === pageOrigin;
  if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) return url.protocol === source.toLowerCase();
  const parts = /^([a-z][a-z0-9+.-]*:)\/\/(\*\.)?([^:/]+|\[[^\]]+\])(?::(\d+|\*))?\/?$/i.exec(source);
  if (!parts) return false;
  const [, scheme = '', wildcard, host = '', port] = parts;
  // An http: source also allows the same host over https: (the secure upgrade CSP allows).
  const schemeOk =
    url.protocol === scheme.toLowerCase() || (scheme.toLowerCase() === 'http:' && url.protocol === 'https:');
  const name = url.hostname.toLowerCase();
  const hostOk = wildcard ? name.endsWith(`.${host.toLowerCase()}`) : name === host.toLowerCase();
  const urlPort = url.port || DEFAULT_PORT[url.protocol] || '';
  const portOk =
    port === '*' ||
    (port ? urlPort === port : urlPort === DEFAULT_PORT[url.protocol] || urlPort === DEFAULT_PORT[scheme]);
  return schemeOk && hostOk && portOk;
}

/** Whether any of `sources` (a connect-src list) allows a request to `url` from a page at `pageOrigin`. */
export function connectSrcAllows(url: URL, sources: readonly string[], pageOrigin: string): boolean {
  return sources.some((source) => sourceMatches(source, url, pageOrigin));
}
