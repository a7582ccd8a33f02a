import { useState } from 'preact/hooks';
import { loadMarkdown } from './Answer.tsx';

/**
 * The answer as plain text: rendered (and sanitized) as the page shows it, then read as text in a
 * document that runs nothing (DOMParser's), so what is copied is what the user read, without markup.
 */
async function plainText(markdown: string): Promise<string> {
  const render = await loadMarkdown();
  const doc = new DOMParser().parseFromString(render(markdown), 'text/html');
  return (doc.body.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

/** Copy answer: as plain text, or as the Markdown the worker wrote. */
export function CopyAnswer({ text, testId }: { text: string; testId: string }) {
  const [said, setSaid] = useState<string | undefined>();
  async function copy(kind: 'plain' | 'markdown') {
    try {
      await navigator.clipboard.writeText(kind === 'plain' ? await plainText(text) : text);
      setSaid(kind === 'plain' ? 'Copied as plain text.' : 'Copied as Markdown.');
    } catch (error) {
      setSaid(`Could not copy: ${(error as Error).message}`);
    }
  }
  return (
    <span class="row copy-answer" data-testid={testId}>
      <button type="button" class="small" onClick={() => void copy('plain')} data-testid={`${testId}-plain`}>
        Copy answer
      </button>
      <button type="button" class="small" onClick={() => void copy('markdown')} data-testid={`${testId}-md`}>
        Copy as Markdown
      </button>
      {said && (
        <span class="small muted" role="status">
          {said}
        </span>
      )}
    </span>
  );
}
