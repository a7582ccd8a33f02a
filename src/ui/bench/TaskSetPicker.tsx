import { useState } from 'preact/hooks';
import { SAMPLE_TASKS } from '../../evaluation/sample-tasks.ts';
import { parseTaskSet, type Task, type TaskSetLineError } from '../../evaluation/taskset.ts';

export interface TaskSetChoice {
  source: 'sample' | 'import';
  tasks: Task[];
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
  // Imported tasks survive a switch to the sample and back.
  const [imported, setImported] = useState<Task[]>([]);

  const read = (text: string, from: string) => {
    const parsed = parseTaskSet(text);
    setErrors(parsed.errors);
    setOrigin(from);
    setImported(parsed.tasks);
    onChange({ source: 'import', tasks: parsed.tasks });
  };

  const onFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = '';
    if (file) read(await file.text(), file.name);
  };

  return (
    <fieldset disabled={disabled} data-testid="taskset">
      <legend>Task set</legend>
      <div class="segmented" role="radiogroup" aria-label="Task set source">
        <label>
          <input
            type="radio"
            name="bench-taskset"
            checked={value.source === 'sample'}
            onChange={() => onChange({ source: 'sample', tasks: SAMPLE_TASKS })}
          />
          Built-in sample ({SAMPLE_TASKS.length} tasks)
        </label>
        <label>
          <input
            type="radio"
            name="bench-taskset"
            checked={value.source === 'import'}
            onChange={() => onChange({ source: 'import', tasks: imported })}
          />
          Import JSONL
        </label>
      </div>
      {value.source === 'import' && (
        <div class="bench-import">
          <p class="field-hint">
            One task a line: <code>{'{"id","question","answer","kind"}'}</code>, kind one of exact, choice,
            numeric, regex, code; optional <code>choices</code> (a list) and <code>tests</code> (JavaScript
            that calls <code>assert</code>).
          </p>
          <div class="field">
            <label for="bench-file">JSONL file</label>
            <input
              id="bench-file"
              type="file"
              accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson,application/json,text/plain"
              onChange={(e) => void onFile(e.currentTarget)}
            />
          </div>
          <div class="field">
            <label for="bench-paste">Or paste JSONL</label>
            <textarea
              id="bench-paste"
              rows={5}
              spellcheck={false}
              class="mono"
              value={paste}
              onInput={(e) => setPaste(e.currentTarget.value)}
            />
          </div>
          <button type="button" onClick={() => read(paste, 'the pasted text')} disabled={!paste.trim()}>
            Read pasted tasks
          </button>
        </div>
      )}
      <p class="small" data-testid="taskset-summary" role="status">
        {value.tasks.length === 0
          ? 'No tasks chosen yet.'
          : `${value.tasks.length} task${value.tasks.length === 1 ? '' : 's'} (${countByKind(value.tasks)})${
              value.source === 'import' && origin ? ` from ${origin}` : ''
            }.`}
      </p>
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
