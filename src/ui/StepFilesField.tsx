import type { AttachmentRef } from '../records/runs-db.ts';
import { fileOf, type PlanFiles, resolveFiles } from '../shared/plan/files.ts';
import type { FileEntry, Files } from '../shared/plan/schema.ts';

/** The plan language's view of a question's files, from their references and the workers that take images. */
export function planFilesFrom(refs: readonly AttachmentRef[], visionWorkers: readonly string[]): PlanFiles {
  return {
    count: refs.length,
    images: refs.flatMap((ref, i) => (ref.kind === 'image' ? [i] : [])),
    names: refs.map((ref) => ref.name),
    visionWorkers,
  };
}

/**
 * Which attached files one step of a plan under review gets, one checkbox per file: the user sees where
 * each file goes before anything is sent, and can change it. File names are the user's files' text.
 */
export function StepFilesField({
  index,
  refs,
  files,
  onChange,
}: {
  index: number;
  refs: readonly AttachmentRef[];
  files: Files | undefined;
  onChange: (files: FileEntry[]) => void;
}) {
  const entries: FileEntry[] = files === 'all' ? refs.map((_, i) => i) : (files ?? []);
  const given = resolveFiles(entries, refs.length);
  // A file ticked goes whole; unticked, every entry of it goes (its passages too).
  const toggle = (file: number, on: boolean) =>
    onChange(
      on
        ? [...entries, file].sort((a, b) => fileOf(a) - fileOf(b))
        : entries.filter((entry) => fileOf(entry) !== file),
    );
  return (
    <fieldset data-testid={`edit-step-${index}-files`}>
      <legend>Files sent with this step</legend>
      <div class="sees-list">
        {refs.map((ref, file) => (
          <label key={ref.id}>
            <input
              type="checkbox"
              checked={given.includes(file)}
              onChange={(e) => toggle(file, e.currentTarget.checked)}
              data-testid={`edit-step-${index}-file-${file}`}
            />{' '}
            {file}. {ref.name} ({ref.kind})
          </label>
        ))}
      </div>
    </fieldset>
  );
}
