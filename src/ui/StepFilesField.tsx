import { useEffect, useState } from 'preact/hooks';
import {
  type FilePreview,
  type PassagePreview,
  passagesSent,
  tickPassage,
  withEntry,
} from '../app/runs/review-files.ts';
import type { AttachmentRef } from '../records/runs-db.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { type PlanFiles, resolveFiles } from '../shared/plan/files.ts';
import type { FileEntry, Files, Step } from '../shared/plan/schema.ts';

/** The plan language's view of a question's files, from their references and the workers that take images. */
export function planFilesFrom(refs: readonly AttachmentRef[], visionWorkers: readonly string[]): PlanFiles {
  return {
    count: refs.length,
    images: refs.flatMap((ref, i) => (ref.kind === 'image' ? [i] : [])),
    names: refs.map((ref) => ref.name),
    visionWorkers,
  };
}

/** What a step would send of each file, as the run will choose it (src/app/runs/review-files.ts). */
export type PreviewFiles = (step: Pick<Step, 'files' | 'task'>, index: number) => Promise<FilePreview[]>;

/**
 * The step's files as entries, one per file: `"all"` written out, each file as it will go (a long file
 * the plan did not choose for goes as passages, so it stays passages), so one file's entry can change.
 */
function entriesOf(files: Files | undefined, count: number, previews: readonly FilePreview[]): FileEntry[] {
  if (files !== 'all') return [...(files ?? [])];
  return Array.from({ length: count }, (_, file) =>
    previews.find((p) => p.file === file)?.passages ? { file } : file,
  );
}

/**
 * Which attached files one step of a plan under review gets, one checkbox per file, and for a file that
 * goes as passages, each passage that will go (its place, first words and size) with its own checkbox and
 * "Send whole file": the user sees what leaves before anything is sent, and can change it. File names and
 * passages are the user's files' text, rendered as text.
 */
export function StepFilesField({
  index,
  refs,
  files,
  task,
  preview,
  onChange,
}: {
  index: number;
  refs: readonly AttachmentRef[];
  files: Files | undefined;
  task: string;
  preview?: PreviewFiles | undefined;
  onChange: (files: FileEntry[]) => void;
}) {
  const [previews, setPreviews] = useState<readonly FilePreview[]>([]);
  // Every passage shown for a file, so one unticked stays on the list to be ticked again.
  const [seen, setSeen] = useState<Record<number, PassagePreview[]>>({});
  const key = `${JSON.stringify(files ?? null)}\u0000${task}`;
  useEffect(() => {
    if (!preview) return;
    let live = true;
    void preview({ ...(files !== undefined ? { files } : {}), task }, index).then((next) => {
      if (!live) return;
      setPreviews(next);
      setSeen((before) => {
        const after = { ...before };
        for (const p of next) {
          if (!p.passages) continue;
          const known = new Map((after[p.file] ?? []).map((q) => [q.n, q]));
          for (const q of p.passages) known.set(q.n, q);
          after[p.file] = [...known.values()].sort((a, b) => a.n - b.n);
        }
        return after;
      });
    });
    return () => {
      live = false;
    };
  }, [key, index]);

  const entries = entriesOf(files, refs.length, previews);
  const given = resolveFiles(entries, refs.length);
  // A file ticked goes whole; unticked, every entry of it goes (its passages too).
  const toggle = (file: number, on: boolean) => onChange(withEntry(entries, file, on ? file : undefined));
  const sentOf = (file: number) => passagesSent(entries, previews, file);
  const togglePassage = (file: number, n: number, on: boolean) =>
    onChange(tickPassage(entries, previews, file, n, on));
  const problem = previews.find((p) => p.problem)?.problem;
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
      {problem && (
        <p class="alert" data-kind="warn" data-testid={`edit-step-${index}-files-problem`}>
          {problem}
        </p>
      )}
      {previews.map((p) =>
        p.passages && given.includes(p.file) ? (
          <Passages
            key={p.file}
            index={index}
            preview={p}
            name={refs[p.file]?.name ?? `file ${p.file}`}
            shown={seen[p.file] ?? p.passages}
            sent={sentOf(p.file)}
            onTick={(n, on) => togglePassage(p.file, n, on)}
            onWhole={() => onChange(withEntry(entries, p.file, p.file))}
          />
        ) : null,
      )}
    </fieldset>
  );
}

function Passages({
  index,
  preview,
  name,
  shown,
  sent: sentList,
  onTick,
  onWhole,
}: {
  index: number;
  preview: FilePreview;
  name: string;
  shown: readonly PassagePreview[];
  /** The numbers of the passages that go. */
  sent: readonly number[];
  onTick: (n: number, on: boolean) => void;
  onWhole: () => void;
}) {
  const sent = new Set(sentList);
  const chars = shown.reduce((sum, p) => sum + (sent.has(p.n) ? p.chars : 0), 0);
  const id = `edit-step-${index}-file-${preview.file}`;
  return (
    <div class="step-passages" data-testid={`${id}-passages`}>
      <p class="small">
        {name}: {sent.size} of {preview.total} passages ({formatBytes(chars)}) go, nothing else of the file.
        {preview.weak ? ' The search matched weakly: they may not hold what the step needs.' : ''}
      </p>
      <ul class="plain">
        {shown.map((p) => (
          <li key={p.n}>
            <label>
              <input
                type="checkbox"
                checked={sent.has(p.n)}
                onChange={(e) => onTick(p.n, e.currentTarget.checked)}
                data-testid={`${id}-passage-${p.n}`}
              />{' '}
              {p.place}: “{p.start}” ({formatBytes(p.chars)})
            </label>
          </li>
        ))}
      </ul>
      <button type="button" class="small" onClick={onWhole} data-testid={`${id}-whole`}>
        Send whole file
      </button>
    </div>
  );
}
