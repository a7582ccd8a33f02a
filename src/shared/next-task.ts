/**
 * A pause that lets the page draw and take input before long work goes on: the rest runs in a new task
 * (`scheduler.yield()` where the browser has it, which keeps the work's place ahead of other tasks).
 */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
