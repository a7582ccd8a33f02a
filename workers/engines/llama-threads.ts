/**
 * How many threads llama.cpp computes with: one per physical core, which browsers do not report, so half
 * the logical cores as wllama's own default does. Every logical core oversubscribes the machine: llama.cpp's
 * threads spin at each barrier, and the page, the GPU process and a second tab need cores too (two tabs
 * generating at once on two cores ran a third slower). Threads need SharedArrayBuffer, so cross-origin
 * isolation; else one.
 */
export function llamaThreads(host: {
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** The model's own setting, which wins. */
  requested?: number;
}): number {
  if (host.requested !== undefined) return host.requested;
  if (!host.crossOriginIsolated) return 1;
  return Math.max(1, Math.floor((host.hardwareConcurrency || 1) / 2));
}
