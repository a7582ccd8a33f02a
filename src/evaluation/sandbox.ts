import type { CodeRunner } from './score.ts';

interface Pending {
  resolve: (result: { passed: boolean; message: string }) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Runs code answers in public/sandbox/code-runner.html inside `<iframe sandbox="allow-scripts">`: an opaque
 * origin (no IndexedDB, so no reach to the vault), a CSP with no network, and one worker per run so a
 * time limit can stop an endless loop. A worker of our own origin would be able to read the vault.
 */
export function createSandboxRunner(
  container: HTMLElement = document.body,
): CodeRunner & { dispose(): void } {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('aria-hidden', 'true');
  frame.title = 'Code runner';
  frame.style.display = 'none';
  frame.src = `${import.meta.env.BASE_URL}sandbox/code-runner.html`;
  const pending = new Map<string, Pending>();
  const ready = new Promise<void>((resolve) => {
    const onReady = (event: MessageEvent) => {
      if (event.source === frame.contentWindow && event.data?.ready) {
        window.removeEventListener('message', onReady);
        resolve();
      }
    };
    window.addEventListener('message', onReady);
  });
  const onMessage = (event: MessageEvent) => {
    if (event.source !== frame.contentWindow) return;
    const { id, passed, message } = event.data ?? {};
    const entry = typeof id === 'string' ? pending.get(id) : undefined;
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve({ passed: passed === true, message: String(message ?? '') });
  };
  window.addEventListener('message', onMessage);
  container.append(frame);

  return {
    async run(code, tests, timeoutMs) {
      await ready;
      const id = crypto.randomUUID();
      return new Promise((resolve) => {
        // A second bound in case the runner frame itself stops answering.
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve({ passed: false, message: `timed out after ${timeoutMs} ms` });
        }, timeoutMs + 2000);
        pending.set(id, { resolve, timer });
        frame.contentWindow?.postMessage({ id, code, tests, timeoutMs }, '*');
      });
    },
    dispose() {
      window.removeEventListener('message', onMessage);
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
      frame.remove();
    },
  };
}
