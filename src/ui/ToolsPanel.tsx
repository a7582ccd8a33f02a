import { useEffect, useState } from 'preact/hooks';
import { MAX_TOOL_ROUNDS } from '../app/tools.ts';
import { asksFirst, type ListedTool, planToolName } from '../tools/servers.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';

/** What a tool's annotations say, in words: the user decides what to offer from this. */
function annotationText(tool: ListedTool): string {
  const a = tool.annotations ?? {};
  if (!asksFirst(tool)) return 'read-only';
  return a.destructiveHint === false
    ? 'changes data (asks before each call)'
    : 'may delete or overwrite (asks before each call)';
}

/**
 * Settings → Tools: MCP servers by URL (Streamable HTTP), an optional bearer token (saved in the vault for
 * the server's origin), each server's tools with their descriptions and annotations, and which of them the
 * conductor is offered; and how many rounds of tool calls a step may make.
 */
export function ToolsPanel() {
  const tools = useAppState().tools;
  const [id, setId] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  useEffect(() => {
    void tools.load();
  }, []);
  const busy = tools.busy.value;
  return (
    <section class="card" aria-labelledby="tools-title" data-testid="tools-panel">
      <h2 id="tools-title">Tools</h2>
      <p class="small muted">
        MCP servers the page may call for a step the plan grants a tool. A tool that may change things asks
        you before each call. Tool output is shown only to the step that called it.
      </p>
      {tools.error.value && (
        <p class="alert" data-kind="error" role="alert" data-testid="tools-error">
          {tools.error.value}
        </p>
      )}
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void tools.addServer({ id: id.trim(), url: url.trim(), token }).then((ok) => {
            if (!ok) return;
            setId('');
            setUrl('');
            setToken('');
          });
        }}
      >
        <Field
          id="tool-server-id"
          label="Name (as plans write it)"
          value={id}
          onValue={setId}
          data-testid="tool-server-id"
        />
        <Field
          id="tool-server-url"
          type="url"
          label="Server URL"
          value={url}
          onValue={setUrl}
          data-testid="tool-server-url"
        />
        <Field
          id="tool-server-token"
          type="password"
          label="Bearer token (optional)"
          autocomplete="off"
          value={token}
          onValue={setToken}
          data-testid="tool-server-token"
        />
        <button type="submit" class="primary" disabled={busy !== undefined} data-testid="tool-server-add">
          {busy !== undefined ? 'Connecting…' : 'Add and list tools'}
        </button>
      </form>
      {tools.servers.value.map((server) => (
        <div key={server.id} class="tool-server" data-testid={`tool-server-${server.id}`}>
          <div class="row">
            <strong>{server.id}</strong> <code class="small">{server.url}</code>
            <span class="spacer" />
            <button type="button" class="small" onClick={() => void tools.refresh(server.id)}>
              List again
            </button>
            <button type="button" class="small" onClick={() => void tools.removeServer(server.id)}>
              Remove
            </button>
          </div>
          <ul class="plain">
            {server.tools.map((tool) => (
              <li key={tool.name}>
                <label>
                  <input
                    type="checkbox"
                    checked={server.offered.includes(tool.name)}
                    data-testid={`offer-${planToolName(server.id, tool.name)}`}
                    onChange={(e) => void tools.setOffered(server.id, tool.name, e.currentTarget.checked)}
                  />{' '}
                  <code>{planToolName(server.id, tool.name)}</code>{' '}
                  <span class="small muted">({annotationText(tool)})</span>
                </label>
                {tool.description && <div class="small muted">{tool.description.slice(0, 300)}</div>}
              </li>
            ))}
          </ul>
        </div>
      ))}
      <Field
        id="tool-rounds"
        type="number"
        label="Rounds of tool calls per step"
        min={1}
        max={MAX_TOOL_ROUNDS}
        value={tools.rounds.value}
        onValue={(v) => tools.setRounds(Number(v))}
        hint="After these, the step's model is told to answer with what it has."
      />
    </section>
  );
}
