import type { ThreadListing } from '../../records/thread-store.ts';

/**
 * The threads as the list beside the conversation shows them: pinned ones first, each group newest
 * activity first (the store's order, kept). With a search, a thread is listed when its title holds every
 * word of the query, or when one of its runs matched (`matches`: the thread ids of History's search
 * results, which look in every question and answer).
 */
export function listedThreads(
  threads: readonly ThreadListing[],
  search?: { query: string; matches: ReadonlySet<string> | undefined },
): ThreadListing[] {
  const words = search?.query.toLowerCase().split(/\s+/).filter(Boolean) ?? [];
  const shown =
    words.length === 0
      ? [...threads]
      : threads.filter((t) => {
          const title = t.title.toLowerCase();
          return words.every((w) => title.includes(w)) || search?.matches?.has(t.id) === true;
        });
  return [...shown.filter((t) => t.pinned), ...shown.filter((t) => !t.pinned)];
}
