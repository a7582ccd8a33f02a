import type { Citation } from '../providers/transport.ts';
import { citationOf } from '../providers/web-search.ts';

/**
 * A searching worker's sources, under its answer: plain links the user may follow. The page never fetches
 * them (no favicon, no preview), a link opens without a referrer or a handle on this page, only http(s) URLs
 * are links (a stored or imported record is checked again here), and each title is text with the link's
 * host beside it, so a title cannot pass for another site.
 */
export function Citations({
  citations,
  testId,
}: {
  citations: readonly Citation[] | undefined;
  testId: string;
}) {
  const links = (citations ?? []).flatMap((c) => citationOf(c.url, c.title) ?? []);
  if (links.length === 0) return null;
  return (
    <div class="citations" data-testid={testId}>
      <p class="small muted">Sources</p>
      <ol aria-label="Sources">
        {links.map((c) => {
          const host = new URL(c.url).host;
          return (
            <li key={c.url}>
              <a href={c.url} target="_blank" rel="noreferrer noopener">
                {c.title ?? host}
              </a>
              {c.title && <span class="muted small"> · {host}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
