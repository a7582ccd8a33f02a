/**
 * Settings → Tools and what runs need of it: the MCP servers the user added (listed, their tools offered or
 * not), the bound on a step's rounds of tool calls, and the question to the user before a call to a tool
 * that may change things (one at a time, answered on the run's screen). A server's token is a vault key for
 * the server's URL (its origin, and its path in the provider id, mcp-preset.ts), so egress sends it to that
 * server and no other, not even one on the same origin.
 */
import { signal } from '@preact/signals';
import type { Egress } from '../egress/egress.ts';
import type { SandboxRunner } from '../sandbox/code-runner.ts';
import type { OfferedTool } from '../shared/conductor-api.ts';
import type { Step } from '../shared/plan/index.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { toolServerError } from '../tools/cors.ts';
import { type BuiltinTool, sandboxTool } from '../tools/sandbox-tool.ts';
import {
  asksFirst,
  DEFAULT_TOOL_ROUNDS,
  offeredTools,
  planToolName,
  serverProblems,
  type ToolServer,
} from '../tools/servers.ts';
import type { stepTools, ToolConfirmRequest } from '../tools/step-tools.ts';
import type { ToolStore } from '../tools/store.ts';
import { adoptOriginTokens, hasTokenFor, isTokenOf, tokenBinding } from '../tools/tokens.ts';
import { callsTools } from '../tools/tool-workers.ts';
import type { KeyInfo, Vault } from '../vault/vault.ts';
import { storedValue } from './local-store.ts';
import { once } from './services.ts';

// The SDK's client (and what it brings) loads on the first use of a tool, not with the page.
const connectionModule = once(() => import('../tools/connection.ts'));
const stepToolsModule = once(() => import('../tools/step-tools.ts'));

export interface ToolServices {
  toolStore?(): Promise<ToolStore>;
  egress(): Promise<Pick<Egress, 'fetchFor'>>;
  vault(): Promise<Pick<Vault, 'saveKey' | 'listKeys' | 'deleteKey' | 'keyFor' | 'state'>>;
  /** The page's code sandbox: `sandbox.run_python` runs there. Absent: the tool is never offered. */
  codeSandbox?(): Promise<Pick<SandboxRunner, 'execute'>>;
}

/** A call waiting for the user's yes or no. */
export interface PendingToolConfirm extends ToolConfirmRequest {
  answer(yes: boolean): void;
}

/** What a run needs of the tools: the conductor's offer, and a step's grant made callable. */
export interface RunTools {
  /** The tools offered now, as the planner is told of them (empty: none). */
  offered(): Promise<OfferedTool[]>;
  /** The executor's `toolsFor` over the servers as stored now. */
  toolsFor(): Promise<
    | ((step: Step, index: number, worker: WorkerSpec, runId: string) => ReturnType<typeof stepTools>)
    | undefined
  >;
}

const ROUNDS_KEY = 'baton.toolRounds';
export const MAX_TOOL_ROUNDS = 16;

function pageOrigin(): string {
  return globalThis.location?.origin ?? 'this page';
}

/** Asks for the passphrase when the vault is locked and `needsKey` wants a saved key (vault-unlock.ts). */
type UnlockFor = (needsKey: (keys: readonly KeyInfo[]) => boolean, purpose: string) => Promise<boolean>;

/**
 * `sandboxOn`: whether the code sandbox is offered (Settings, the same choice that adds the `run` worker to
 * the pool); while it is, so is `sandbox.run_python`. `unlockFor`: the unlock prompt, asked before a call
 * to a server whose token is saved while the vault is locked (absent: such a call fails, naming the lock).
 */
export function createTools(
  services: ToolServices,
  sandboxOn: () => boolean = () => false,
  unlockFor?: UnlockFor,
) {
  const servers = signal<ToolServer[]>([]);
  const error = signal<string | undefined>(undefined);
  const busy = signal<string | undefined>(undefined);
  const pending = signal<PendingToolConfirm[]>([]);
  const roundsChoice = storedValue<number>(
    ROUNDS_KEY,
    (raw) => {
      const n = Number(raw);
      return raw !== null && Number.isInteger(n) && n >= 1 && n <= MAX_TOOL_ROUNDS ? n : DEFAULT_TOOL_ROUNDS;
    },
    String,
  );
  const rounds = signal<number>(roundsChoice.read());

  async function store(): Promise<ToolStore | undefined> {
    return services.toolStore?.();
  }

  /** Reads the servers; tokens an earlier version saved for a whole origin are bound to each server's URL. */
  async function load(): Promise<void> {
    const s = await store();
    if (!s) return;
    servers.value = await s.list();
    await adoptOriginTokens(await services.vault(), servers.value).catch(() => undefined);
  }

  /** Connects to the server and lists its tools; the message says what went wrong, CORS by its fix. */
  async function listed(server: ToolServer): Promise<ToolServer> {
    const { connectMcp } = await connectionModule();
    const connection = await connectMcp(await services.egress(), server);
    try {
      const tools = await connection.listTools();
      return { ...server, tools, listedAt: Date.now() };
    } finally {
      await connection.close().catch(() => undefined);
    }
  }

  /** The unlock prompt before a token is saved or sent (vault-unlock.ts); declined, it names the lock. */
  async function unlockedFor(purpose: string, needsKey: (keys: readonly KeyInfo[]) => boolean = () => true) {
    if (unlockFor && !(await unlockFor(needsKey, purpose)))
      throw new Error(`The vault is still locked: unlock it ${purpose}.`);
  }

  async function act(id: string, work: () => Promise<void>): Promise<boolean> {
    busy.value = id;
    error.value = undefined;
    try {
      await work();
      await load();
      return true;
    } catch (e) {
      error.value = toolServerError(e, id, pageOrigin());
      return false;
    } finally {
      busy.value = undefined;
    }
  }

  /**
   * Adds a server (or replaces one of the same name): its token saved in the vault, its tools listed, the
   * read-only ones offered (a tool that may change things is offered only once the user ticks it).
   */
  async function addServer(input: { id: string; url: string; token?: string }): Promise<boolean> {
    const problems = serverProblems(input);
    if (problems.length > 0) {
      error.value = problems.join(' ');
      return false;
    }
    return act(input.id, async () => {
      const s = await store();
      if (!s) throw new Error('Tools cannot be stored in this browser.');
      const token = input.token?.trim();
      if (token) await unlockedFor(`to save the token of tool server "${input.id}"`);
      else await unlockedFor(`to send the token saved for ${input.url}`, hasTokenFor(input.url));
      if (token)
        await (await services.vault()).saveKey({
          ...tokenBinding(input.url),
          key: token,
          label: input.id,
        });
      const server = await listed({ id: input.id, url: input.url, tools: [], offered: [] });
      server.offered = server.tools.filter((tool) => !asksFirst(tool)).map((tool) => tool.name);
      await s.save(server);
    });
  }

  /** Lists a server's tools again; tools offered before stay offered if it still lists them. */
  function refresh(id: string): Promise<boolean> {
    return act(id, async () => {
      const s = await store();
      const server = await s?.get(id);
      if (!s || !server) return;
      await unlockedFor(`to send the token of tool server "${id}"`, hasTokenFor(server.url));
      await s.save(await listed(server));
    });
  }

  function setOffered(id: string, tool: string, on: boolean): Promise<boolean> {
    return act(id, async () => {
      const s = await store();
      const server = await s?.get(id);
      if (!s || !server) return;
      const offered = server.offered.filter((name) => name !== tool);
      await s.save({ ...server, offered: on ? [...offered, tool] : offered });
    });
  }

  /** Removes the server, and its token unless another server at its URL still uses it. */
  function removeServer(id: string): Promise<boolean> {
    return act(id, async () => {
      const s = await store();
      const server = await s?.get(id);
      if (!s || !server) return;
      await s.remove(id);
      const isToken = isTokenOf(server.url);
      if ((await s.list()).some((other) => isToken(tokenBinding(other.url)))) return;
      const vault = await services.vault();
      for (const key of await vault.listKeys()) if (isToken(key)) await vault.deleteKey(key.id);
    });
  }

  function setRounds(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > MAX_TOOL_ROUNDS) return;
    rounds.value = n;
    roundsChoice.write(n);
  }

  /** Asks the user about a call; the first waiting question is the one shown. */
  function confirm(request: ToolConfirmRequest): Promise<boolean> {
    return new Promise((resolve) => {
      const entry: PendingToolConfirm = {
        ...request,
        answer(yes) {
          pending.value = pending.value.filter((p) => p !== entry);
          resolve(yes);
        },
      };
      pending.value = [...pending.value, entry];
    });
  }

  /** The page's own tools on offer now. */
  function builtins(): BuiltinTool[] {
    const sandbox = services.codeSandbox?.bind(services);
    return sandbox && sandboxOn() ? [sandboxTool(sandbox)] : [];
  }

  const run: RunTools = {
    async offered() {
      const own = builtins().map((b) => ({
        name: planToolName(b.server, b.tool),
        description: b.plannerNote,
        readOnly: true,
      }));
      const s = await store();
      if (!s) return own;
      const listed = offeredTools(await s.list()).map(({ name, tool }) => ({
        name,
        description: tool.description,
        readOnly: !asksFirst(tool),
      }));
      return [...own, ...listed];
    },
    async toolsFor() {
      // A store that cannot be read gives no tools: the run goes on, its steps answer without them.
      const s = await store().catch(() => undefined);
      const stored = s ? await s.list().catch(() => []) : [];
      await adoptOriginTokens(await services.vault(), stored).catch(() => undefined);
      const own = builtins();
      if (stored.length === 0 && own.length === 0) return undefined;
      const [egress, { stepTools }] = await Promise.all([services.egress(), stepToolsModule()]);
      return (step, index, worker, runId) => {
        if (!step.tools?.length || !callsTools(worker)) return undefined;
        // Only tools still offered: one unticked since the plan was written is not called.
        const offered = new Set([
          ...offeredTools(stored).map((t) => t.name),
          ...own.map((b) => planToolName(b.server, b.tool)),
        ]);
        return stepTools({
          egress,
          servers: stored,
          builtins: own,
          grant: step.tools.filter((name) => offered.has(name)),
          runId,
          stepIndex: index,
          maxRounds: rounds.value,
          pageOrigin: pageOrigin(),
          confirm,
          ...(unlockFor
            ? {
                unlock: (server: ToolServer) =>
                  unlockFor(hasTokenFor(server.url), `to send your token to the tool server "${server.id}"`),
              }
            : {}),
        });
      };
    },
  };

  return {
    servers,
    error,
    busy,
    pending,
    rounds,
    load,
    addServer,
    refresh,
    setOffered,
    removeServer,
    setRounds,
    confirm,
    run,
  };
}

export type ToolsState = ReturnType<typeof createTools>;
