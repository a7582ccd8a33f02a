import { useState } from 'preact/hooks';
import {
  BENCHMARK_IMPORTERS,
  importTaskSet,
  importTaskSetFile,
  TaskSetFileError,
  type TaskSetImport,
} from '../../evaluation/importers/index.ts';
import { sampleItems } from '../../evaluation/random.ts';
import { SAMPLE_TASKS } from '../../evaluation/sample-tasks.ts';
import type { Task, TaskSetLineError } from '../../evaluation/taskset.ts';

export interface TaskSetChoice {
  source: 'sample' | 'import';
  /** The tasks the bench runs: every strategy gets these same items. */
  tasks: Task[];
  /** Set when `tasks` is a seeded sample of a larger set. */
  sample?: { of: number; seed: number };
}

/** Where each published file comes from; the app reads a file the user picks and downloads nothing. */
function FormatNotes() {
  return (
    <details class="bench-formats" data-testid="taskset-formats">
      <summary>Published benchmark files this reads</summary>
      <p class="small">
        Pick the file as published, gzip-compressed (.gz) or not; its format is recognised from its first
        record (or its name). Nothing is downloaded by Baton.
      </p>
      <ul class="small">
        {BENCHMARK_IMPORTERS.map((importer) => (
          <li key={importer.id}>
            <strong>{importer.label}</strong>: <code>{importer.source.file}</code> from{' '}
            <a href={importer.source.url} target="_blank" rel="noopener noreferrer">
              {importer.source.url.replace(/^https:\/\//, '')}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}

function countByKind(tasks: readonly Task[]): string {
  const counts = new Map<string, number>();
  for (const task of tasks) counts.set(task.kind, (counts.get(task.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

/** The built-in sample, or a JSONL file / paste; bad lines are listed by number and the good ones kept. */
export function TaskSetPicker({
  value,
  onChange,
  disabled,
}: {
  value: TaskSetChoice;
  onChange: (choice: TaskSetChoice) => void;
  disabled?: boolean;
}) {
  const [paste, setPaste] = useState('');
  const [errors, setErrors] = useState<TaskSetLineError[]>([]);
  const [origin, setOrigin] = useState<string | undefined>();
  const [format, setFormat] = useState<string | undefined>();
  // Imported tasks survive a switch to the sample and back.
  const [imported, setImported] = useState<Task[]>([]);
  const [sampleSize, setSampleSize] = useState('');
  const [seed, setSeed] = useState(1);
  /** Why the picked file could not be read at all (not text, a broken gzip). */
  const [fileProblem, setFileProblem] = useState<string | undefined>();

  /** The chosen set, cut to a seeded sample when a size smaller than the set is given. */
  const choose = (source: TaskSetChoice['source'], all: Task[], size = sampleSize, withSeed = seed) => {
    const n = Number.parseInt(size, 10);
    if (Number.isFinite(n) && n > 0 && n < all.length)
      onChange({ source, tasks: sampleItems(all, n, withSeed), sample: { of: all.length, seed: withSeed } });
    else onChange({ source, tasks: all });
  };
  const full = value.source === 'sample' ? SAMPLE_TASKS : imported;

  const show = (parsed: TaskSetImport, from: string) => {
    setFileProblem(undefined);
    setErrors(parsed.errors);
    setOrigin(parsed.gzip ? `${from} (gzip)` : from);
    setFormat(parsed.format.label);
    setImported(parsed.tasks);
    choose('import', parsed.tasks);
  };

  const readPaste = async () => show(await importTaskSet(paste), 'the pasted text');

  const onFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      show(await importTaskSetFile(file, file.name), file.name);
    } catch (error) {
      // A file that is not text at all: said once, and the tasks chosen before stay.
      if (!(error instanceof TaskSetFileError)) throw error;
      setFileProblem(error.message);
    }
  };
  const pythonTasks = value.tasks.filter((t) => t.kind === 'python').length;

  return (
    <fieldset disabled={disabled} data-testid="taskset">
      <legend>Task set</legend>
      <div class="segmented" role="radiogroup" aria-label="Task set source">
        <label>
          <input
            type="radio"
            name="bench-taskset"
            checked={value.source === 'sample'}
            onChange={() => choose('sample', SAMPLE_TASKS)}
          />
          Built-in sample ({SAMPLE_TASKS.length} tasks)
        </label>
        <label>
          <input
            type="radio"
            name="bench-taskset"
            checked={value.source === 'import'}
            onChange={() => choose('import', imported)}
          />
          Import JSONL or CSV
        </label>
      </div>
      {value.source === 'import' && (
        <div class="bench-import">
          <p class="field-hint">
            A published benchmark file (below), or Baton's own JSONL, one task a line:{' '}
            <code>{'{"id","question","answer","kind"}'}</code>, kind one of exact, choice, numeric, regex,
            code, math, python; optional <code>choices</code> (a list) and <code>tests</code> (JavaScript that
            calls <code>assert</code>).
          </p>
          <FormatNotes />
          <div class="field">
            <label for="bench-file">JSONL or CSV file (also .gz)</label>
            <input
              id="bench-file"
              type="file"
              accept=".jsonl,.ndjson,.json,.csv,.txt,.gz,application/x-ndjson,application/json,text/csv,text/plain,application/gzip"
              aria-describedby={fileProblem ? 'bench-file-problem' : undefined}
              onChange={(e) => void onFile(e.currentTarget)}
            />
            {fileProblem && (
              <p
                id="bench-file-problem"
                class="alert"
                data-kind="error"
                role="alert"
                data-testid="taskset-file-problem"
              >
                {fileProblem}
              </p>
            )}
          </div>
          <div class="field">
            <label for="bench-paste">Or paste JSONL or CSV</label>
            <textarea
              id="bench-paste"
              rows={5}
              spellcheck={false}
              class="mono"
              value={paste}
              onInput={(e) => setPaste(e.currentTarget.value)}
            />
          </div>
          <button type="button" onClick={() => void readPaste()} disabled={!paste.trim()}>
            Read pasted tasks
          </button>
        </div>
      )}
      <div class="bench-sample">
        <div class="field">
          <label for="bench-sample-size">Items to run</label>
          <input
            id="bench-sample-size"
            type="number"
            min={1}
            inputMode="numeric"
            placeholder={`all ${full.length}`}
            value={sampleSize}
            onInput={(e) => {
              setSampleSize(e.currentTarget.value);
              choose(value.source, full, e.currentTarget.value);
            }}
          />
        </div>
        <div class="field">
          <label for="bench-sample-seed">Seed</label>
          <input
            id="bench-sample-seed"
            type="number"
            inputMode="numeric"
            value={seed}
            onInput={(e) => {
              const next = Number.parseInt(e.currentTarget.value, 10) || 0;
              setSeed(next);
              choose(value.source, full, sampleSize, next);
            }}
          />
        </div>
        <p class="field-hint">
          The same seed picks the same items, and every strategy answers those same items.
        </p>
      </div>
      <p class="small" data-testid="taskset-summary" role="status">
        {value.tasks.length === 0
          ? 'No tasks chosen yet.'
          : `${value.tasks.length} task${value.tasks.length === 1 ? '' : 's'} (${countByKind(value.tasks)})${
              value.sample ? `, a sample of ${value.sample.of} with seed ${value.sample.seed}` : ''
            }${value.source === 'import' && origin ? ` from ${origin}` : ''}${
              value.source === 'import' && format ? `, read as ${format}` : ''
            }.`}
      </p>
      {pythonTasks > 0 && (
        <p class="small" data-testid="taskset-python">
          The {pythonTasks} Python task{pythonTasks === 1 ? ' is' : 's are'} checked by their own tests in
          Python in this browser (Pyodide, in the code sandbox): about 6 MB is downloaded from this site when
          the first one is scored, then kept for offline use.
        </p>
      )}
      {value.source === 'import' && errors.length > 0 && (
        <div class="alert" data-kind="error">
          <p style={{ margin: 0 }}>
            {errors.length} line{errors.length === 1 ? ' was' : 's were'} skipped; the other lines were kept:
          </p>
          <ul data-testid="taskset-errors">
            {errors.map((e) => (
              <li key={e.line}>
                Line {e.line}: {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </fieldset>
  );
}
