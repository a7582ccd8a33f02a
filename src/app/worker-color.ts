/** The CSS colour of a worker's slot (`--w0`..`--w7`), for chips, bars and graph nodes. */
export function workerColor(worker: string, poolOrder: readonly string[]): string {
  return `var(--w${workerColorIndex(worker, poolOrder)})`;
}

/** Stable colour slot (0..7) per worker id, in the order the pool lists them. */
export function workerColorIndex(worker: string, poolOrder: readonly string[]): number {
  const at = poolOrder.indexOf(worker);
  if (at >= 0) return at % 8;
  let hash = 0;
  for (const ch of worker) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return hash % 8;
}
