import { useEffect, useState } from 'preact/hooks';
import { getBridge } from '../app/conductor.ts';
import { presetById } from '../providers/catalog.ts';
import { isLoopbackHostname, localServerUrlProblem } from '../shared/loopback.ts';
import { LOCAL_SERVER_KINDS, type LocalServerKind, type ModelRef } from '../shared/model.ts';
import { Field } from './Field.tsx';

export type LocalServerModel = Extract<ModelRef, { engine: 'local-server' }>;

/** What the form holds while the user types. */
export interface LocalServerDraft {
  server: LocalServerKind;
  baseURL: string;
  model: string;
}

export function defaultDraft(server: LocalServerKind = 'ollama'): LocalServerDraft {
  return { server, baseURL: presetById(server)?.baseURL ?? 'http://localhost:11434/v1', model: '' };
}

export function draftOf(model: ModelRef | undefined): LocalServerDraft | undefined {
  if (model?.engine !== 'local-server') return undefined;
  return { server: model.server ?? 'ollama', baseURL: model.baseURL, model: model.model };
}

/** Reads the form: the model to load, or why it cannot be loaded (a non-loopback URL above all). */
export function localServerModel(draft: LocalServerDraft): LocalServerModel | string {
  const problem = localServerUrlProblem(draft.baseURL);
  if (problem) return problem;
  const model = draft.model.trim();
  if (!model) return 'Enter the model id the server knows (for Ollama, a name like qwen2.5:14b).';
  return {
    engine: 'local-server',
    baseURL: draft.baseURL.trim().replace(/\/+$/, ''),
    model,
    server: draft.server,
  };
}

/** How to let this page call the server (its CORS setting), with this page's origin filled in. */
export function corsHintFor(server: LocalServerKind, origin: string): string | undefined {
  return presetById(server)?.corsHint?.replaceAll('<this page origin>', origin);
}

/** A public https page reaching a server on this machine: Chrome asks the user first (Local Network Access). */
function needsLocalNetworkAccess(): boolean {
  return location.protocol === 'https:' && !isLoopbackHostname(location.hostname);
}

const SERVER_NAMES: Record<LocalServerKind, string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  llamacpp: 'llama.cpp server',
  vllm: 'vLLM',
};

/** The first ids of a long list (all of them are in the model field's suggestions). */
function shortList(ids: readonly string[], most = 12): string {
  return ids.length <= most
    ? ids.join(', ')
    : `${ids.slice(0, most).join(', ')} and ${ids.length - most} more`;
}

type Discovery =
  | { state: 'idle' }
  | { state: 'asking' }
  | { state: 'found'; ids: string[] }
  | { state: 'failed'; message: string };

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
  const [discovery, setDiscovery] = useState<Discovery>({ state: 'idle' });
  const [asked, setAsked] = useState(0);
  const urlProblem = localServerUrlProblem(draft.baseURL);

  useEffect(() => {
    if (urlProblem) {
      setDiscovery({ state: 'idle' });
      return;
    }
    let live = true;
    // Typing a URL asks once it has stopped changing, not at every key.
    const timer = setTimeout(() => {
      setDiscovery({ state: 'asking' });
      void getBridge()
        .then((bridge) => bridge.serverModels(draft.baseURL.trim()))
        .then(
          (ids) => live && setDiscovery({ state: 'found', ids }),
          (e: unknown) =>
            live && setDiscovery({ state: 'failed', message: (e as Error).message ?? String(e) }),
        );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [draft.baseURL, urlProblem, asked]);

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
          onChange={(e) => {
            const server = e.currentTarget.value as LocalServerKind;
            // The base URL follows the server unless the user changed it.
            const typed = draft.baseURL !== defaultDraft(draft.server).baseURL;
            onDraft({ ...draft, server, baseURL: typed ? draft.baseURL : defaultDraft(server).baseURL });
          }}
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
      {needsLocalNetworkAccess() && (
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
