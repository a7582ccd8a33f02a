/**
 * The service worker that vite-plugin-pwa generates: it precaches the app shell and caches an engine's
 * files the first time they are fetched (vite.config.ts). Only in builds: the dev server has no worker.
 */

let registration: Promise<ServiceWorkerRegistration | undefined> | undefined;

/** Registers the worker once the page has loaded, so it never competes with the first render. */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  registration = new Promise((resolve) => {
    const register = () => {
      navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(resolve, (error: unknown) => {
        console.warn('The offline app shell is unavailable:', error);
        resolve(undefined);
      });
    };
    if (document.readyState === 'complete') register();
    else addEventListener('load', register, { once: true });
  });
}

// Installing the shell takes a moment (~0.3 MB); past this the engine loads anyway, only not cached.
const CONTROL_TIMEOUT_MS = 10_000;

/**
 * Resolves true once the service worker controls this page, false when it will not (no worker in this
 * build or browser, it failed to install, or the page was deliberately loaded without it) or not in time.
 * The conductor's Web Worker waits for it on a first visit: a thread started before the page is controlled
 * fetches the engine's files past the service worker, so they would not be cached for offline use.
 */
export function whenControlled(timeoutMs = CONTROL_TIMEOUT_MS): Promise<boolean> {
  const container = globalThis.navigator?.serviceWorker;
  if (!registration || !container) return Promise.resolve(false);
  if (container.controller) return Promise.resolve(true);
  const pending = registration;
  return new Promise((resolve) => {
    const finish = (controlled: boolean) => {
      clearTimeout(timer);
      container.removeEventListener('controllerchange', onControl);
      resolve(controlled);
    };
    const onControl = () => finish(true);
    const timer = setTimeout(() => finish(false), timeoutMs);
    container.addEventListener('controllerchange', onControl);
    void pending.then((reg) => {
      const incoming =
        reg?.installing ?? reg?.waiting ?? (reg?.active?.state === 'activating' ? reg.active : null);
      // Active yet not in control, with nothing on the way: this page was loaded past the worker (a hard
      // reload), and the worker claims pages only when it activates.
      if (!incoming) {
        if (!container.controller) finish(false);
        return;
      }
      incoming.addEventListener('statechange', () => {
        if (incoming.state === 'redundant') finish(false);
      });
    });
  });
}
