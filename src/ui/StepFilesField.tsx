import type { AttachmentRef } from '../records/runs-db.ts';
import type { PlanFiles } from '../shared/plan/files.ts';
import type { Files } from '../shared/plan/index.ts';

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
  onChange: (files: number[]) => void;
}) {
  const given = files === 'all' ? refs.map((_, i) => i) : (files ?? []);
  const toggle = (file: number, on: boolean) =>
    onChange(on ? [...new Set([...given, file])].sort((a, b) => a - b) : given.filter((i) => i !== file));
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
