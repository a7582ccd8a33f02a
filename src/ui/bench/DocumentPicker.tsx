import type { BenchDocument } from '../../app/bench/bench-document.ts';
import { approxTokens } from '../../attachments/whole-or-passages.ts';
import { formatBytes } from '../../shared/format-bytes.ts';

/**
 * The one document a bench's reading strategies answer from: the user's own file, read on this device.
 * Its name is the user's file's text, shown as text.
 */
export function DocumentPicker({ picker, disabled }: { picker: BenchDocument; disabled?: boolean }) {
  const attached = picker.document.value;
  const problem = picker.problem.value;
  const onFile = (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = '';
    if (file) void picker.attach(file);
  };
  return (
    <fieldset disabled={disabled} data-testid="bench-document">
      <legend>Document (reading strategies)</legend>
      <p class="field-hint">
        For the reading pair: your questions about one document, answered with it whole and as passages. Other
        strategies are not sent it.
      </p>
      <div class="field">
        <label for="bench-document-file">Text, Markdown, CSV or PDF file</label>
        <input
          id="bench-document-file"
          type="file"
          aria-describedby={problem ? 'bench-document-problem' : undefined}
          onChange={(e) => onFile(e.currentTarget)}
        />
      </div>
      {picker.reading.value && <p class="small">Reading the document…</p>}
      {problem && (
        <p id="bench-document-problem" class="alert" data-kind="error" role="alert">
          {problem}
        </p>
      )}
      {attached && (
        <p class="small row" data-testid="bench-document-chosen">
          <span>
            {attached.name} · {formatBytes(attached.size)} · about {approxTokens(attached).toLocaleString()}{' '}
            tokens of text
          </span>
          <button type="button" class="small" onClick={() => picker.clear()}>
            Remove document
          </button>
        </p>
      )}
    </fieldset>
  );
}
