import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CiteToken, SentPassage } from '../attachments/passage-cites.ts';
import { linkCitations } from './cite-links.ts';

type Renderer = (markdown: string) => string;
let renderer: Renderer | undefined;
let loading: Promise<Renderer> | undefined;

/** Loads marked + DOMPurify + highlight.js on first use (they are not in the first-load bundle). */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('./markdown.ts').then((m) => {
    renderer = m.renderMarkdown;
    return m.renderMarkdown;
  });
  return loading;
}

/** What an answer's citations of passages can open: the passages the run sent, matched on the device. */
export interface AnswerCites {
  /** The passages a citation names; none, and it stays text. */
  find: (token: CiteToken) => SentPassage[];
  open: (token: CiteToken, passages: SentPassage[]) => void;
  /** Changes when there are more passages to cite (a step's record came in). */
  key: string;
}

/** The passages a citation's button opens, as its accessible name says them: "contract.pdf, page 42". */
function passagesLabel(passages: readonly SentPassage[]): string {
  return passages.map((p) => `${p.name}, ${p.place}`).join('; ');
}

/**
 * An untrusted answer, as sanitized markdown. Until the renderer has loaded, the text is shown as plain text
 * (a text node, never HTML). A streaming answer is rendered in the same frame as its text arrives: the run
 * view already draws streamed text at most about seven times a second (src/app/runs/draw-timing.ts), and a
 * second frame of its own per update doubled what the page repaints. With `cites`, each citation of a
 * passage the run sent ("[3]", "[p. 12]") becomes a button that opens it in the local copy of its file.
 */
export function Answer({ text, cites }: { text: string; cites?: AnswerCites | undefined }) {
  const [ready, setReady] = useState(renderer !== undefined);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ready) void loadMarkdown().then(() => setReady(true));
  }, [ready]);
  const html = useMemo(() => (ready ? renderer!(text) : undefined), [text, ready]);
  // A button made on an earlier draw opens what the newest `cites` finds.
  const latest = useRef(cites);
  latest.current = cites;
  // After the HTML is in place (Preact sets it again only when it changes), before it is painted; `cites`
  // is new on every draw, its key says when it changed.
  useLayoutEffect(() => {
    const element = root.current;
    if (!cites || !element || html === undefined) return;
    linkCitations(
      element,
      (token) => {
        const found = cites.find(token);
        return found.length > 0 ? passagesLabel(found) : undefined;
      },
      (token) => {
        const found = latest.current?.find(token) ?? [];
        if (found.length > 0) latest.current?.open(token, found);
      },
    );
  }, [html, cites?.key]);

  if (!ready || html === undefined) {
    return (
      <div class="answer" data-testid="answer">
        <p class="plain">{text}</p>
      </div>
    );
  }
  return <div ref={root} class="answer" data-testid="answer" dangerouslySetInnerHTML={{ __html: html }} />;
}
