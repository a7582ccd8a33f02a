import { useEffect, useRef, useState } from 'preact/hooks';

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
 * (a text node, never HTML). While streaming, re-rendering is batched to one per animation frame.
 */
export function Answer({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const [ready, setReady] = useState(renderer !== undefined);
  const [html, setHtml] = useState<string | undefined>(() => renderer?.(text));
  const frame = useRef<number | undefined>(undefined);
  const latest = useRef(text);
  latest.current = text;

  useEffect(() => {
    if (!ready) {
      void loadMarkdown().then(() => setReady(true));
      return;
    }
    if (!streaming) {
      setHtml(renderer!(text));
      return;
    }
    if (frame.current === undefined) {
      frame.current = requestAnimationFrame(() => {
        frame.current = undefined;
        setHtml(renderer!(latest.current));
      });
    }
  }, [text, ready, streaming]);
  useEffect(
    () => () => {
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
    },
    [],
  );

  if (!ready || html === undefined) {
    return (
      <div class="answer" data-testid="answer">
        <p class="plain">{text}</p>
      </div>
    );
  }
  return <div class="answer" data-testid="answer" dangerouslySetInnerHTML={{ __html: html }} />;
}
