// Inside the sandboxed iframe. Each run gets its own worker, so an endless loop is stopped by terminate().
const workerSource = `
self.onmessage = async (event) => {
  const { code, tests } = event.data;
  const assert = (condition, message) => {
    if (!condition) throw new Error(message || 'assertion failed');
  };
  try {
    const AsyncFunction = (async () => {}).constructor;
    const run = new AsyncFunction('assert', code + '\\n;\\n' + tests);
    await run(assert);
    self.postMessage({ passed: true, message: 'all tests passed' });
  } catch (error) {
    self.postMessage({ passed: false, message: String((error && error.message) || error) });
  }
};`;
const workerUrl = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const { id, code, tests, timeoutMs } = event.data || {};
  if (typeof id !== 'string') return;
  const reply = (result) => window.parent.postMessage({ id, ...result }, '*');
  const worker = new Worker(workerUrl);
  const timer = setTimeout(() => {
    worker.terminate();
    reply({ passed: false, message: `timed out after ${timeoutMs} ms` });
  }, timeoutMs);
  worker.onmessage = (message) => {
    clearTimeout(timer);
    worker.terminate();
    reply(message.data);
  };
  worker.onerror = (error) => {
    clearTimeout(timer);
    worker.terminate();
    reply({ passed: false, message: error.message || 'the code could not run' });
  };
  worker.postMessage({ code, tests });
});
window.parent.postMessage({ ready: true }, '*');
