/**
 * The MCP servers the user added (Settings → Tools), and what each offers: a server as stored, the tools it
 * listed (name, description, input schema, annotations), and which of them the conductor is offered.
 */
/** What a server's annotations say of a tool (MCP `ToolAnnotations`; all hints, none a promise). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

export interface ToolServer {
  /** The user's short name for it, as plans write it before a tool's name: `tracker.search_issues`. */
  id: string;
  /** Its Streamable HTTP endpoint (`https://host/mcp`). */
  url: string;
  /** The tools it listed when last connected. */
  tools: ListedTool[];
  /** Names of the tools offered to the conductor (a tool not offered is in no plan). */
  offered: string[];
  /** When the tools were listed (Date.now()). */
  listedAt?: number;
}

/** Rounds of tool calls a step may make unless the user set otherwise (Settings → Tools). */
export const DEFAULT_TOOL_ROUNDS = 4;

/** The code sandbox's tools go under this name (sandbox-tool.ts), so no server the user adds may take it. */
export const SANDBOX_SERVER = 'sandbox';

/** A server's name: a letter or digit, then letters, digits, `-`, `_` (no dot: a plan splits on it). */
export const SERVER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Why a server cannot be saved, in words for the user; empty when it can. */
export function serverProblems(server: Pick<ToolServer, 'id' | 'url'>): string[] {
  const problems: string[] = [];
  if (!SERVER_ID_PATTERN.test(server.id))
    problems.push(
      'Name the server with 1 to 32 letters, digits, "-" or "_", starting with a letter or digit.',
    );
  if (server.id.toLowerCase() === SANDBOX_SERVER)
    problems.push(
      `"${SANDBOX_SERVER}" names the page's own code sandbox (its tool ${SANDBOX_SERVER}.run_python): give the server another name.`,
    );
  let url: URL | undefined;
  try {
    url = new URL(server.url);
  } catch {
    problems.push('The server URL is not a valid URL.');
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push('The server URL must be http(s).');
  if (url && (url.username || url.password))
    problems.push('The server URL must not contain a user name or password.');
  return problems;
}

/** A tool as a plan names it. */
export function planToolName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** A plan's tool name split at its first dot (a server's name has none; a tool's may). */
export function splitToolName(name: string): { server: string; tool: string } | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return { server: name.slice(0, dot), tool: name.slice(dot + 1) };
}

/**
 * Whether a call to the tool must be confirmed by the user first: unless its annotations say it only
 * reads (`readOnlyHint`) and not that it destroys. The spec's defaults (readOnlyHint false,
 * destructiveHint true) make a tool without annotations one that asks.
 */
export function asksFirst(tool: ListedTool): boolean {
  return tool.annotations?.readOnlyHint !== true || tool.annotations?.destructiveHint === true;
}

/** The tools offered to the conductor, over every server, as plans name them. */
export function offeredTools(
  servers: readonly ToolServer[],
): { name: string; server: ToolServer; tool: ListedTool }[] {
  return servers.flatMap((server) =>
    server.tools
      .filter((tool) => server.offered.includes(tool.name))
      .map((tool) => ({ name: planToolName(server.id, tool.name), server, tool })),
  );
}
