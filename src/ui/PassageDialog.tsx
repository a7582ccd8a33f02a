import { useEffect, useRef, useState } from 'preact/hooks';
import type { SentPassage } from '../attachments/passage-cites.ts';
import { splitPassages } from '../attachments/passages.ts';
import type { Attachment } from '../attachments/types.ts';

/** A citation an answer made, and the passages the run sent that it names. */
export interface OpenedCitation {
  cite: string;
  passages: SentPassage[];
}

interface Shown {
  passage: SentPassage;
  /** The passage's text, from the local copy of its file (absent: the file is no longer stored here). */
  text?: string;
  /** A PDF's local copy at the passage's page (a blob: URL; nothing is fetched). */
  pdfAt?: string;
}

/**
 * The passages one citation names, read from the files kept on this device (IndexedDB), so a claim can be
 * checked against its source without sending anything: each passage's text where the file has it (its
 * number in the file finds it again: splitting is deterministic), and a PDF opened at its page from a blob
 * URL. The file's text is the user's file's: shown as text, never markup.
 */
async function shownOf(
  passages: readonly SentPassage[],
  fileOf: (id: string) => Promise<Attachment | undefined>,
  urls: string[],
): Promise<Shown[]> {
  const ids = [...new Set(passages.map((p) => p.file))];
  const files = new Map(await Promise.all(ids.map(async (id) => [id, await fileOf(id)] as const)));
  const pdfUrls = new Map<string, string>();
  const split = new Map<string, ReturnType<typeof splitPassages>>();
  return passages.map((passage) => {
    const file = files.get(passage.file);
    if (!file || file.kind === 'image') return { passage };
    let all = split.get(file.id);
    if (!all) {
      all = splitPassages(file);
      split.set(file.id, all);
    }
    const text = all[passage.n]?.text;
    let pdfAt: string | undefined;
    if (file.kind === 'pdf' && passage.page !== undefined) {
      let url = pdfUrls.get(file.id);
      if (!url) {
        // Typed by what Baton read it as, so the browser shows it rather than saving it.
        url = URL.createObjectURL(new Blob([file.blob], { type: 'application/pdf' }));
        pdfUrls.set(file.id, url);
        urls.push(url);
      }
      pdfAt = `${url}#page=${passage.page}`;
    }
    return { passage, ...(text !== undefined ? { text } : {}), ...(pdfAt ? { pdfAt } : {}) };
  });
}

/** A modal dialog with the passages a citation names; Esc or Close closes it, focus goes back to the citation. */
export function PassageDialog({
  opened,
  fileOf,
  onClose,
}: {
  opened: OpenedCitation | undefined;
  fileOf: (id: string) => Promise<Attachment | undefined>;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const [shown, setShown] = useState<Shown[] | undefined>();
  // Read once per citation opened: the loader is a new function on every draw of the run.
  const loader = useRef(fileOf);
  loader.current = fileOf;

  useEffect(() => {
    setShown(undefined);
    if (!opened) return;
    let live = true;
    const urls: string[] = [];
    void shownOf(opened.passages, loader.current, urls).then(
      (found) => live && setShown(found),
      () => live && setShown(opened.passages.map((passage) => ({ passage }))),
    );
    return () => {
      live = false;
      for (const url of urls) URL.revokeObjectURL(url);
    };
  }, [opened]);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (opened && !element.open) {
      returnFocus.current = document.activeElement as HTMLElement | null;
      element.showModal();
    } else if (!opened && element.open) element.close();
  }, [opened]);

  return (
    <dialog
      ref={dialog}
      class="card passage-dialog"
      aria-labelledby="passage-dialog-title"
      data-testid="passage-dialog"
      onClose={() => {
        onClose();
        returnFocus.current?.focus?.();
        returnFocus.current = null;
      }}
    >
      <h2 id="passage-dialog-title">Cited as {opened?.cite}</h2>
      <p class="small muted">From the copy of the file on this device: opening it sends nothing.</p>
      {opened && !shown && <p aria-busy="true">Reading the file…</p>}
      {shown?.map(({ passage, text, pdfAt }) => (
        <section key={`${passage.step}:${passage.file}:${passage.n}`} data-testid="cited-passage">
          <h3 class="passage-place">
            {passage.name}, {passage.place}
          </h3>
          {text !== undefined ? (
            <blockquote class="passage-text">{text}</blockquote>
          ) : (
            <p class="muted">This file is no longer stored on this device.</p>
          )}
          {pdfAt && (
            <a href={pdfAt} target="_blank" rel="noopener noreferrer" data-testid="open-pdf-page">
              Open the PDF at page {passage.page}
            </a>
          )}
        </section>
      ))}
      <form method="dialog" class="row">
        <button type="submit" class="primary" data-testid="passage-dialog-close">
          Close
        </button>
      </form>
    </dialog>
  );
}
