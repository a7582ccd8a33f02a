/**
 * Remembers which origins the app's own Content-Security-Policy blocked lately (the `securitypolicyviolation`
 * events), so a failed request can be explained (src/providers/network-cause.ts on the page, the download
 * reporter in the thread). Works on the page and in a thread.
 */

/** Origins the CSP blocked lately, with when. Old ones are dropped so a later failure is not misread. */
const blocked = new Map<string, number>();
const REMEMBER_MS = 60_000;
let watching = false;

/** Starts listening for CSP violations (once per page or thread). */
export function watchCspViolations(target: EventTarget | undefined = globalThis): void {
  if (watching || typeof target?.addEventListener !== 'function') return;
  watching = true;
  target.addEventListener('securitypolicyviolation', (event) => {
    const { blockedURI, effectiveDirective } = event as SecurityPolicyViolationEvent;
    if (effectiveDirective !== 'connect-src' || !blockedURI) return;
    try {
      blocked.set(new URL(blockedURI).origin, Date.now());
    } catch {
      // `blockedURI` can be a keyword ("inline", "eval"): never a connect-src target.
    }
  });
}

/**
 * Resolves a task later: a violation event is queued as its own task, which may run after the `fetch` it
 * blocked rejects, so a failure is explained only once that task has had its turn.
 */
export function violationsDelivered(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/** Records a block seen elsewhere: egress's fetch worker saw the violation in its own global. */
export function noteCspBlocked(origin: string, now = Date.now()): void {
  blocked.set(origin, now);
}

/** Whether the CSP blocked a request to `origin` lately. */
export function cspBlocked(origin: string, now = Date.now()): boolean {
  const at = blocked.get(origin);
  if (at === undefined) return false;
  if (now - at > REMEMBER_MS) {
    blocked.delete(origin);
    return false;
  }
  return true;
}
