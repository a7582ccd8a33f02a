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
