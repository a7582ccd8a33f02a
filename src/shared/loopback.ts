/**
 * Whether a URL points at this machine. The local planner engine relies on it to keep planning on the
 * device, so it is strict: the name `localhost`, an IPv4 address in 127.0.0.0/8 or the IPv6 address ::1,
 * read from the URL as the browser parses it (so `http://localhost.evil.com` and
 * `http://localhost@evil.com` are not loopback, and `http://127.1` is).
 */

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Whether `hostname`, as `URL` gives it (lower case, IPv4 in dotted decimal, IPv6 in brackets), is this machine. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || IPV4_LOOPBACK.test(hostname);
}

/** Whether `url` parses and its host is this machine. */
export function isLoopback(url: string): boolean {
  try {
    return isLoopbackHostname(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Why `url` cannot be the base URL of a server the conductor plans with, in words for the user; undefined
 * when it can (an http(s) URL on this machine, without credentials).
 */
export function localServerUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return `"${url}" is not a URL: enter the server's base URL, like http://localhost:11434/v1.`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `The planner server must be an http(s) URL, not ${parsed.protocol}.`;
  }
  if (!isLoopbackHostname(parsed.hostname)) {
    return (
      `The planner server must run on this machine (localhost, 127.x.x.x or [::1]), and ${parsed.host} ` +
      'is not: planning never leaves the device, so Baton does not send the prompt there.'
    );
  }
  if (parsed.username || parsed.password)
    return 'The planner server URL must not contain a user name or password.';
  return undefined;
}
