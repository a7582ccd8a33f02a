import { useState } from 'preact/hooks';
import { PROMPT_NAME_MAX, promptProblem } from '../app/saved-prompts.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';
import { DeleteButton } from './HistoryRowParts.tsx';

/**
 * Settings → Saved prompts: the small library `/` offers in an empty question box. A prompt is saved
 * with a name (what `/` filters on) and its text; deleting one asks first.
 */
export function SavedPromptsPanel() {
  const { savedPrompts } = useAppState();
  const list = savedPrompts.prompts.value;
  const [name, setName] = useState('');
  const [text, setText] = useState('');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | undefined>();
  const save = (event: Event) => {
    event.preventDefault();
    // What is wrong with it keeps the form as typed; a prompt the browser would not store is kept for the visit.
    const invalid = promptProblem(list, name, text);
    if (invalid) {
      setMessage({ kind: 'error', text: invalid });
      return;
    }
    const unsaved = savedPrompts.add(name, text);
    setMessage(unsaved ? { kind: 'error', text: unsaved } : { kind: 'ok', text: `Saved “${name.trim()}”.` });
    setName('');
    setText('');
  };
  return (
    <section class="card" aria-labelledby="saved-prompts-title" data-testid="saved-prompts">
      <h2 id="saved-prompts-title">Saved prompts</h2>
      <p class="small muted">
        Type <kbd>/</kbd> at the start of an empty question box to insert one: what you type after it finds
        them by name. They are kept in this browser. Put one in a thread's Instructions to send it with every
        turn there (it is exported with the thread then).
      </p>
      {list.length === 0 ? (
        <p class="muted small">No saved prompts yet.</p>
      ) : (
        <ul class="history-list saved-prompts" aria-label="Your saved prompts">
          {list.map((prompt) => (
            <li key={prompt.id} data-testid="saved-prompt">
              <strong class="q">{prompt.name}</strong>
              <span class="small muted">{prompt.text.length.toLocaleString('en')} characters</span>
              <DeleteButton
                kind="saved prompt"
                name={prompt.name}
                question={`Delete the saved prompt “${prompt.name}”?`}
                onDelete={() => {
                  const problem = savedPrompts.remove(prompt.id);
                  setMessage(problem ? { kind: 'error', text: problem } : undefined);
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={save} data-testid="saved-prompt-form">
        <Field
          id="saved-prompt-name"
          label="Prompt name"
          value={name}
          onValue={setName}
          maxLength={PROMPT_NAME_MAX}
        />
        <div class="field">
          <label for="saved-prompt-text">Prompt text</label>
          <textarea
            id="saved-prompt-text"
            rows={4}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </div>
        <button type="submit" data-testid="saved-prompt-save">
          Save prompt
        </button>
      </form>
      {message && (
        <p
          class="alert small"
          data-kind={message.kind}
          role={message.kind === 'error' ? 'alert' : 'status'}
          data-testid="saved-prompt-message"
        >
          {message.text}
        </p>
      )}
    </section>
  );
}
