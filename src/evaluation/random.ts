/** Seeded randomness, so a sample or a shuffle is the same on every machine and every run. */

/** mulberry32: a tiny 32-bit PRNG (Tommy Ettinger), plenty for sampling and shuffling; returns [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string: turns an item's id into a seed of its own. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A Fisher–Yates shuffle of a copy, driven by `random`. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * `n` items chosen with `seed`, kept in their original order: the same seed gives the same items, so every
 * strategy of a bench (and every later bench with that seed) answers the same questions.
 */
export function sampleItems<T>(items: readonly T[], n: number, seed: number): T[] {
  if (n >= items.length) return [...items];
  const chosen = new Set(
    shuffled(
      items.map((_, i) => i),
      mulberry32(seed),
    ).slice(0, Math.max(0, n)),
  );
  return items.filter((_, i) => chosen.has(i));
}
