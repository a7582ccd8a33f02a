/** A failed import, said in words. */
export interface ImportFailure {
  ok: false;
  error: string;
}

/**
 * Reads the file chosen in `input` (then clears the choice, so the same file can be chosen again) and hands
 * its text to `importer`. A file that cannot be read or a store that refuses the write comes back as a
 * failure naming `what` could not be imported, never as a silent rejection. Nothing chosen: undefined.
 */
export async function importChosenFile<R>(
  input: HTMLInputElement,
  importer: (text: string) => Promise<R>,
  what: string,
): Promise<R | ImportFailure | undefined> {
  const chosen = input.files?.[0];
  input.value = '';
  if (!chosen) return undefined;
  return chosen
    .text()
    .then(importer)
    .catch((error: unknown) => ({
      ok: false as const,
      error: `The ${what} could not be imported: ${(error as { message?: string }).message ?? String(error)}`,
    }));
}

/** A button that opens the file chooser for one JSON file (History's run and thread imports). */
export function JsonFilePicker(props: {
  id: string;
  label: string;
  testId: string;
  onFile: (input: HTMLInputElement) => void;
}) {
  return (
    <>
      <label class="button" for={props.id}>
        {props.label}
      </label>
      <input
        id={props.id}
        type="file"
        accept="application/json,.json"
        class="visually-hidden"
        data-testid={props.testId}
        onChange={(e) => props.onFile(e.currentTarget)}
      />
    </>
  );
}
