import { connectSrcAllows, pageConnectSrc } from '../security/connect-src.ts';

/**
 * Under a base URL the user types: says when the page's policy will refuse that host, in a build and
 * under `npm start` alike (both send the same policy), and how to allow it.
 */
export function ConnectSrcHint({ baseURL }: { baseURL: string }) {
  const sources = pageConnectSrc();
  let url: URL;
  try {
    url = new URL(baseURL.trim());
  } catch {
    return null;
  }
  if (!sources || !/^https?:$/.test(url.protocol) || connectSrcAllows(url, sources, location.origin))
    return null;
  return (
    <p class="alert small" data-kind="warn" data-testid="connect-src-hint" aria-live="polite">
      This page's security policy does not let it reach {url.host}: requests to it are refused, with{' '}
      <code>npm start</code> as in a build. Allow it when you build the app:{' '}
      <code>BATON_CONNECT_SRC="{url.origin}" npm run build</code> (README, "Allowing a custom host").
    </p>
  );
}
