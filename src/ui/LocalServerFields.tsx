import { useEffect, useState } from 'preact/hooks';
import {
  corsHintFor,
  type LocalServerDraft,
  needsLocalNetworkAccess,
  SERVER_NAMES,
  shortList,
  withServer,
} from '../app/local-server-draft.ts';
import { localServerUrlProblem } from '../shared/loopback.ts';
import { LOCAL_SERVER_KINDS, type LocalServerKind } from '../shared/model.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';

/**
 * The local planner server: which server, its base URL (loopback only), the model id (with the ids the
 * server lists, asked through the conductor thread as soon as the URL is one), its CORS hint and, on a
 * public https page, Chrome's local-network-access prompt.
 */
export function LocalServerFields(props: {
  draft: LocalServerDraft;
  onDraft: (draft: LocalServerDraft) => void;
  /** Why the last Load was refused, beyond the URL (which its field explains as it is typed). */
  error: string | undefined;
  disabled: boolean;
}) {
  const { draft, onDraft, error, disabled } = props;
  const { connections } = useAppState();
  const [asked, setAsked] = useState(0);
  const urlProblem = localServerUrlProblem(draft.baseURL);
  const url = draft.baseURL.trim();
  // What the server said, as long as it is about the URL in the field.
  const said = connections.serverModels.value;
  const discovery = said.state !== 'idle' && said.url === url ? said : ({ state: 'idle' } as const);

  useEffect(() => {
    if (urlProblem) return;
    // Typing a URL asks once it has stopped changing, not at every key.
    const timer = setTimeout(() => void connections.askServer(url), 400);
    return () => clearTimeout(timer);
  }, [url, urlProblem, asked]);

  const hint = corsHintFor(draft.server, location.origin);
  const ids = discovery.state === 'found' ? discovery.ids : [];
  return (
    <div data-testid="local-server-setup">
      <p class="small muted">
        A planner on a server on this machine (a 7B–32B model, or a released Conductor checkpoint) instead of
        one in the page. Planning still never leaves the device: only a server on localhost, 127.x.x.x or
        [::1] is accepted.
      </p>
      <div class="field">
        <label for="local-server-kind">Server</label>
        <select
          id="local-server-kind"
          value={draft.server}
          disabled={disabled}
          onChange={(e) => onDraft(withServer(draft, e.currentTarget.value as LocalServerKind))}
        >
          {LOCAL_SERVER_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {SERVER_NAMES[kind]}
            </option>
          ))}
        </select>
      </div>
      <Field
        id="local-server-url"
        label="Server base URL"
        type="url"
        value={draft.baseURL}
        disabled={disabled}
        onValue={(baseURL) => onDraft({ ...draft, baseURL })}
        {...(urlProblem ? { error: urlProblem } : {})}
      />
      <div class="field">
        <label for="local-server-model">Server model id</label>
        {/* A plain input: Field takes no `list`, and the server's ids are offered as a datalist. */}
        <input
          id="local-server-model"
          list="local-server-model-options"
          value={draft.model}
          disabled={disabled}
          placeholder={draft.server === 'ollama' ? 'qwen2.5:14b' : 'the id the server lists'}
          onInput={(e) => onDraft({ ...draft, model: e.currentTarget.value })}
        />
        <datalist id="local-server-model-options">
          {ids.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
      </div>
      <p class="small" data-testid="local-server-models" aria-live="polite">
        {discovery.state === 'asking' && 'Asking the server for its models…'}
        {discovery.state === 'found' &&
          (ids.length > 0
            ? `The server lists ${ids.length === 1 ? 'one model' : `${ids.length} models`}: ${shortList(ids)}.`
            : 'The server answered but lists no models: load one in it first.')}
        {discovery.state === 'failed' && (
          <>
            {discovery.message}{' '}
            <button type="button" class="small" onClick={() => setAsked((n) => n + 1)}>
              Ask again
            </button>
          </>
        )}
      </p>
      {hint && (
        <p class="small muted" data-testid="local-server-cors">
          {hint}
        </p>
      )}
      {needsLocalNetworkAccess(location.href) && (
        <p class="small muted" data-testid="local-network-access">
          This page is on the internet and the server on your machine: Chrome asks whether this site may reach
          apps on your device (local network access) the first time. Allow it, or the page cannot reach the
          server.
        </p>
      )}
      {error && (
        <p
          id="local-server-error"
          class="alert"
          data-kind="error"
          role="alert"
          data-testid="local-server-error"
        >
          {error}
        </p>
      )}
    </div>
  );
}
