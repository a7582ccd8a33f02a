/**
 * The tools one step was granted, as its transport takes them (src/providers/tool-use.ts). Every call the
 * model asks for is checked here before anything leaves: a tool outside the step's grant is refused, the
 * arguments must match the schema the server gave, a tool that may change things waits for the user's yes
 * (shown its arguments), and only then is the server called, through egress, in the step's name. Whatever
 * happens, the model is told in words, and the result it reads is fenced data (result-text.ts).
 */
import type { Egress } from '../egress/egress.ts';
import type {
  ToolCallNote,
  ToolCallRequest,
  ToolOutcome,
  ToolSpec,
  ToolUse,
  UserWait,
} from '../providers/tool-use.ts';
import { type CallerContext, connectMcp, type McpConnection } from './connection.ts';
import { toolServerError } from './cors.ts';
import { MAX_RESULT_CHARS, resultText } from './result-text.ts';
import type { BuiltinTool } from './sandbox-tool.ts';
import { schemaCheck } from './schema-check.ts';
import {
  asksFirst,
  DEFAULT_TOOL_ROUNDS,
  type ListedTool,
  splitToolName,
  type ToolServer,
} from './servers.ts';

/** What the user is asked before a call to a tool that may change things. */
export interface ToolConfirmRequest {
  runId: string;
  stepIndex: number;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** The tool says it destroys (its `destructiveHint`), not only that it writes. */
  destructive: boolean;
}

export interface StepToolsOptions {
  egress: Pick<Egress, 'fetchFor'>;
  /** The servers as stored now (their listed tools, with schemas and annotations). */
  servers: readonly ToolServer[];
  /** The step's `tools`: plan names. */
  grant: readonly string[];
  /** The page's own tools on offer now (sandbox-tool.ts): granted by plan name like a server's. */
  builtins?: readonly BuiltinTool[];
  runId: string;
  stepIndex: number;
  maxRounds?: number;
  /** Asks the user; resolves false when they decline (or cannot be asked). */
  confirm(request: ToolConfirmRequest): Promise<boolean>;
  /**
   * Before a call to `server`: asks for the passphrase when the vault is locked and holds its token
   * (src/app/vault-unlock.ts); false when the user would not unlock. Absent: not asked.
   */
  unlock?(server: ToolServer): Promise<boolean>;
  /** This page's origin, for the CORS fix a blocked call names. */
  pageOrigin: string;
  maxResultChars?: number;
}

type Granted =
  | { planName: string; server: ToolServer; tool: ListedTool; builtin?: undefined }
  | { planName: string; builtin: BuiltinTool; tool: Pick<ListedTool, 'inputSchema'> };

/** A name both dialects take (`[A-Za-z0-9_-]{1,64}`) for `server.tool`, unique among `taken`. */
function wireName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 60);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}

function refusal(content: string): ToolOutcome {
  return { isError: true, content };
}

/** The step's tools for its transport, or undefined when it was granted none that a server still lists. */
export function stepTools(options: StepToolsOptions): ToolUse | undefined {
  const byWire = new Map<string, Granted>();
  for (const planName of options.grant) {
    const split = splitToolName(planName);
    const builtin = options.builtins?.find((b) => b.server === split?.server && b.tool === split?.tool);
    if (builtin) {
      const name = wireName(builtin.server, builtin.tool, new Set(byWire.keys()));
      byWire.set(name, { planName, builtin, tool: builtin });
      continue;
    }
    const server = split && options.servers.find((s) => s.id === split.server);
    const tool = server?.tools.find((t) => t.name === split?.tool);
    if (!server || !tool || !split) continue;
    byWire.set(wireName(server.id, tool.name, new Set(byWire.keys())), { planName, server, tool });
  }
  if (byWire.size === 0) return undefined;
  const tools: ToolSpec[] = [...byWire.entries()].map(([name, granted]) => ({
    name,
    description: (granted.builtin ?? granted.tool).description,
    inputSchema: granted.tool.inputSchema,
  }));
  const context: CallerContext = { runId: options.runId, stepIndex: options.stepIndex };
  const connections = new Map<string, Promise<McpConnection>>();
  const connection = (server: ToolServer, signal: AbortSignal) => {
    let open = connections.get(server.id);
    if (!open) {
      open = connectMcp(options.egress, server, context, signal);
      // A failed connection is tried afresh on the next call.
      open.catch(() => connections.delete(server.id));
      connections.set(server.id, open);
    }
    return open;
  };
  const checks = new Map<string, ReturnType<typeof schemaCheck>>();
  /** The outcome with what the step records of it. */
  const noted = (tool: string, kind: ToolCallNote['outcome'], outcome: ToolOutcome): ToolOutcome => ({
    ...outcome,
    note: { tool: tool.slice(0, 80), outcome: kind },
  });

  async function call(
    request: ToolCallRequest,
    signal: AbortSignal,
    userWait: UserWait = (asking) => asking(),
  ): Promise<ToolOutcome> {
    const granted = byWire.get(request.name);
    if (!granted) {
      const names = [...byWire.keys()].join(', ');
      return noted(
        request.name,
        'refused',
        refusal(
          `Refused: "${request.name.slice(0, 80)}" is not a tool this step was granted (it may call: ${names}). Nothing was sent.`,
        ),
      );
    }
    const { planName } = granted;
    let args: unknown;
    try {
      args =
        typeof request.arguments === 'string'
          ? JSON.parse(request.arguments || '{}')
          : (request.arguments ?? {});
    } catch {
      return noted(
        planName,
        'invalid',
        refusal(`Not called: the arguments for ${request.name} are not valid JSON. Nothing was sent.`),
      );
    }
    let check = checks.get(request.name);
    if (!check) {
      check = schemaCheck(granted.tool.inputSchema);
      checks.set(request.name, check);
    }
    const checked = check(args);
    if (!checked.ok) {
      return noted(
        planName,
        'invalid',
        refusal(
          `Not called: the arguments do not match ${request.name}'s input schema. Nothing was sent.\n${checked.error}`,
        ),
      );
    }
    const argObject = args as Record<string, unknown>;
    if (granted.builtin) {
      // Runs on this device and reads nothing of the user's: no question first, nothing through egress.
      const result = await granted.builtin.run(argObject, signal);
      return noted(planName, result.isError ? 'failed' : 'called', {
        isError: result.isError === true,
        content: resultText(result, options.maxResultChars ?? MAX_RESULT_CHARS),
      });
    }
    const { server, tool } = granted;
    if (asksFirst(tool)) {
      const yes = await userWait(() =>
        options.confirm({
          runId: options.runId,
          stepIndex: options.stepIndex,
          server: server.id,
          tool: tool.name,
          args: argObject,
          destructive: tool.annotations?.destructiveHint !== false,
        }),
      );
      if (signal.aborted) throw signal.reason;
      if (!yes) {
        return noted(
          planName,
          'declined',
          refusal(`The user declined this call to ${request.name}: nothing was sent to the server.`),
        );
      }
    }
    // Its token is sent only once the vault is open: locked, the user is asked (off the step's clock).
    if (options.unlock) {
      const unlock = options.unlock;
      const unlocked = await userWait(() => unlock(server));
      if (signal.aborted) throw signal.reason;
      if (!unlocked) {
        return noted(
          planName,
          'locked',
          refusal(
            `Not called: the vault is locked and the user did not unlock it, so the token for the MCP server "${server.id}" cannot be sent. Nothing was sent to the server.`,
          ),
        );
      }
    }
    try {
      const open = await connection(server, signal);
      const result = await open.callTool(tool.name, argObject, signal);
      return noted(planName, result.isError ? 'failed' : 'called', {
        isError: result.isError === true,
        content: resultText(result, options.maxResultChars ?? MAX_RESULT_CHARS),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return noted(
        planName,
        'failed',
        refusal(
          `The call to ${request.name} failed: ${toolServerError(error, server.id, options.pageOrigin)}`,
        ),
      );
    }
  }

  return { tools, maxRounds: options.maxRounds ?? DEFAULT_TOOL_ROUNDS, call };
}
