import { useEffect, useRef, useState } from 'preact/hooks';
import type { AttachmentsState } from '../app/attachments-state.ts';
import { ATTACHMENT_LIMITS } from '../attachments/limits.ts';
import type { Attachment } from '../attachments/types.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { PdfPasswordPrompt } from './PdfPasswordPrompt.tsx';

const KIND_LABELS: Record<Attachment['kind'], string> = {
  text: 'text',
  code: 'code',
  markdown: 'Markdown',
  csv: 'CSV',
  json: 'JSON',
  pdf: 'PDF',
  image: 'image',
};

/** What the file picker offers: the kinds Baton reads (anything else is refused with its name). */
const ACCEPT =
  '.txt,.md,.markdown,.csv,.tsv,.json,.pdf,.png,.jpg,.jpeg,.webp,.gif,.js,.ts,.tsx,.jsx,.py,.java,.c,.cpp,.h,.go,.rs,.rb,.sh,.sql,.html,.css,.xml,.yaml,.yml,.toml,text/*,application/json,application/pdf,image/png,image/jpeg,image/webp,image/gif';

export const LIMITS_TEXT =
  `Up to ${ATTACHMENT_LIMITS.filesPerTurn} files, ${formatBytes(ATTACHMENT_LIMITS.turnBytes)} together: ` +
  `text, code, Markdown, CSV or JSON up to ${formatBytes(ATTACHMENT_LIMITS.textFileBytes)}, ` +
  `PDFs up to ${formatBytes(ATTACHMENT_LIMITS.pdfFileBytes)} (${ATTACHMENT_LIMITS.pdfPages.toLocaleString('en')} ` +
  `pages, ${formatBytes(ATTACHMENT_LIMITS.pdfTextBytes)} of text), ` +
  `images (PNG, JPEG, WebP, GIF) up to ${formatBytes(ATTACHMENT_LIMITS.imageFileBytes)}.`;

/** A line under a chip: what Baton noticed while reading the file. */
function noteOf(file: Attachment): string | undefined {
  if (file.kind === 'pdf') {
    const none = file.pagesWithoutText.length;
    return `${file.pages.length} page${file.pages.length === 1 ? '' : 's'}${none > 0 ? `, ${none} without text` : ''}`;
  }
  if (file.kind === 'image') {
    const sent = file.downscaled;
    return sent
      ? `${file.image.width}×${file.image.height}, sent as ${sent.width}×${sent.height}`
      : `${file.image.width}×${file.image.height}`;
  }
  return file.note;
}

function Thumbnail({ blob }: { blob: Blob }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url ? <img class="attachment-thumb" src={url} alt="" width={32} height={32} /> : null;
}

/**
 * The question's attachments: a button to pick files (drops and pastes on the question box land here
 * too), each file as a chip (name, kind, size, a thumbnail for an image) with a button to remove it, the
 * limits, what is being read (with a Cancel), a password prompt for a PDF that needs one, and why a file
 * was not attached. Names are the user's files' text: shown
 * as text, never markup.
 */
export function AttachmentChips({ state }: { state: AttachmentsState }) {
  const input = useRef<HTMLInputElement>(null);
  const files = state.files.value;
  const progress = state.progress.value;
  return (
    <div class="attachments" data-testid="attachments">
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        class="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="attach-input"
        onChange={(e) => {
          const picked = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = '';
          void state.add(picked);
        }}
      />
      <button
        type="button"
        onClick={() => input.current?.click()}
        aria-describedby="attach-limits"
        data-testid="attach-button"
      >
        Attach files
      </button>{' '}
      <span id="attach-limits" class="field-hint">
        {LIMITS_TEXT}
      </span>
      {progress && (
        <p class="field-hint" role="status" data-testid="attach-progress">
          {progress.stage === 'pdf' ? (
            <>
              Reading {progress.file}: page {progress.page} of {progress.pages}{' '}
              <progress max={progress.pages} value={progress.page} />
            </>
          ) : (
            `Reading ${progress.file}…`
          )}{' '}
          <button
            type="button"
            class="link"
            aria-label={`Cancel reading ${progress.file}`}
            onClick={() => state.cancel()}
            data-testid="attach-cancel"
          >
            Cancel
          </button>
        </p>
      )}
      {state.locked.value.map((entry) => (
        <PdfPasswordPrompt key={entry.id} entry={entry} state={state} />
      ))}
      {state.errors.value.length > 0 && (
        <ul class="alert" data-kind="error" role="alert" data-testid="attach-errors">
          {state.errors.value.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
      {files.length > 0 && (
        <ul class="attachment-chips" aria-label="Attached files">
          {files.map((file, index) => {
            const note = noteOf(file);
            return (
              <li key={file.id} class="attachment-chip" data-testid="attachment-chip">
                {file.kind === 'image' && <Thumbnail blob={file.thumbnail} />}
                <span>
                  <span class="attachment-name">
                    {index}. {file.name}
                  </span>{' '}
                  <span class="field-hint">
                    {KIND_LABELS[file.kind]} · {formatBytes(file.size)}
                    {note ? ` · ${note}` : ''}
                  </span>
                </span>
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove ${file.name}`}
                  onClick={() => state.remove(file.id)}
                  data-testid="attachment-remove"
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** Files a drop or a paste carries (none for plain text). */
function filesOf(data: DataTransfer | null): File[] {
  return data ? [...data.files] : [];
}

/**
 * What a box that takes files (Ask's composer, a follow-up) does with them: files dropped on its form or
 * pasted into its text go to `onFiles`; plain text is left to the browser. Without `onFiles` it takes none.
 */
export function fileHandlers(onFiles: ((files: File[]) => void) | undefined) {
  const take = (data: DataTransfer | null, event: Event) => {
    const files = filesOf(data);
    if (!onFiles || files.length === 0) return;
    event.preventDefault();
    onFiles(files);
  };
  return {
    /** For the form. */
    drop: {
      onDragOver: (e: DragEvent) => {
        if (onFiles && e.dataTransfer?.types.includes('Files')) e.preventDefault();
      },
      onDrop: (e: DragEvent) => take(e.dataTransfer, e),
    },
    /** For the text box. */
    onPaste: (e: ClipboardEvent) => take(e.clipboardData, e),
  };
}
