/**
 * Registers the service worker that vite-plugin-pwa generates (precached app shell), once the page has
 * loaded so it never competes with the first render. Only in builds: the dev server has no worker.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
      console.warn('The offline app shell is unavailable:', error);
    });
  };
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
}
