/**
 * Shortens `text` to about `budget` characters, keeping its start and end (where an answer's point and
 * its conclusion usually are). ASCII only in what it adds: the tiny test model takes nothing else.
 */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const keep = Math.max(0, budget - 40);
  const head = Math.ceil(keep * 0.7);
  const tail = keep - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)} [... ${cut} characters cut ...] ${tail > 0 ? text.slice(-tail) : ''}`.trimEnd();
}
