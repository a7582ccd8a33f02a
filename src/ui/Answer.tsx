import { useEffect, useMemo, useState } from 'preact/hooks';

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

/**
 * An untrusted answer, as sanitized markdown. Until the renderer has loaded, the text is shown as plain text
 * (a text node, never HTML). A streaming answer is rendered in the same frame as its text arrives: the run
 * view already draws streamed text at most about seven times a second (src/app/runs/draw-timing.ts), and a
 * second frame of its own per update doubled what the page repaints.
 */
export function Answer({ text }: { text: string }) {
  const [ready, setReady] = useState(renderer !== undefined);
  useEffect(() => {
    if (!ready) void loadMarkdown().then(() => setReady(true));
  }, [ready]);
  const html = useMemo(() => (ready ? renderer!(text) : undefined), [text, ready]);

  if (!ready || html === undefined) {
    return (
      <div class="answer" data-testid="answer">
        <p class="plain">{text}</p>
      </div>
    );
  }
  return <div class="answer" data-testid="answer" dangerouslySetInnerHTML={{ __html: html }} />;
}
