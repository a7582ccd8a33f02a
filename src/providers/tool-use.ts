import { ProviderError } from './errors.ts';

/**
 * What a step's transport is given when its plan granted the step tools: the tools as its model is told of
 * them, a bound on rounds, and one way to call them. The transport speaks its provider's dialect (OpenAI
 * `tools`/`tool_calls`/`role: "tool"`, Anthropic `tool_use`/`tool_result`); what a call does (the grant,
 * the arguments' schema, the user's yes, the server) is `src/tools/`'s, so no transport can call a tool
 * that is not in `tools`, and none sends anything to a tool server itself.
 */

/** One tool as a model is told of it. `name` is its name on the wire (`[A-Za-z0-9_-]{1,64}`, both dialects). */
export interface ToolSpec {
  name: string;
  description: string;
  /** The JSON Schema of its arguments, as the tool's server gave it. */
  inputSchema: Record<string, unknown>;
}

/** A call the model asked for, in the dialect's own terms: its id, the tool's wire name, its arguments. */
export interface ToolCallRequest {
  id: string;
  name: string;
  /** JSON text (OpenAI's `arguments`) or the object itself (Anthropic's `input`). */
  arguments: unknown;
}

/** How a call the model asked for went, for the step's record (never its result). */
export interface ToolCallNote {
  /** As the plan names it (`server.tool`), or the name the model wrote when it named no granted tool. */
  tool: string;
  /** `locked`: not called, the user would not unlock the vault that holds the server's token. */
  outcome: 'called' | 'failed' | 'refused' | 'declined' | 'invalid' | 'locked';
}

/** What goes back to the model: always text (fenced as data), `isError` when the call did not happen or failed. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** What the step records of the call. */
  note?: ToolCallNote;
}

/**
 * Runs `asking` (a question to the person: a tool call's yes, the vault's passphrase) off the step's clock:
 * the step's time limit is for the provider and the servers, not for the user (src/executor/step-clock.ts).
 */
export type UserWait = <T>(asking: () => Promise<T>) => Promise<T>;

export interface ToolUse {
  tools: readonly ToolSpec[];
  /** Most rounds of tool calls; past them the model is told so and must answer with what it has. */
  maxRounds: number;
  /**
   * Never throws for the call's own failures (the model is told them); throws only when `signal` aborts.
   * `userWait`, when given, holds the step's clock while the user is asked.
   */
  call(request: ToolCallRequest, signal: AbortSignal, userWait?: UserWait): Promise<ToolOutcome>;
}

/** The tools with every question to the user made off the step's clock. */
export function askingOffClock(tools: ToolUse, userWait: UserWait): ToolUse {
  return { ...tools, call: (request, signal) => tools.call(request, signal, userWait) };
}

/**
 * A model that asks for calls again after it was told its rounds are spent (and asked for no more with the
 * dialect's own "no tools" choice) is looping: the step fails rather than pay for another request.
 */
export function loopedPastRounds(tools: ToolUse, round: number): void {
  if (round > tools.maxRounds) {
    throw new ProviderError(
      'unexpected-response',
      `The model kept asking for tools after its ${tools.maxRounds} rounds of tool calls were spent, so the step was stopped.`,
    );
  }
}

/** What the model is told of a call past the step's rounds: nothing is sent. */
export function roundsSpent(maxRounds: number): ToolOutcome {
  return {
    isError: true,
    content: `Not called: this step may make at most ${maxRounds} rounds of tool calls, and they are spent. Answer with what you have.`,
  };
}

/** Usage summed over a step's rounds: each round's request is billed, so the step's usage is their sum. */
export class RoundUsage {
  private prompt = 0;
  private completion = 0;
  private last: { promptTokens: number; completionTokens: number } | undefined;

  /** A round's usage event, with the rounds before it added. */
  add<T extends { promptTokens: number; completionTokens: number }>(usage: T): T {
    this.last = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
    return {
      ...usage,
      promptTokens: usage.promptTokens + this.prompt,
      completionTokens: usage.completionTokens + this.completion,
    };
  }

  /** The round ended: its last usage is carried into the next round's. */
  endRound(): void {
    if (this.last) {
      this.prompt += this.last.promptTokens;
      this.completion += this.last.completionTokens;
    }
    this.last = undefined;
  }
}

/**
 * The outcomes of one round's calls, in order: each made (one after another, so a question to the user
 * comes one at a time), or, past the step's rounds, none made and the model told so.
 */
export async function callRound(
  tools: ToolUse,
  calls: readonly ToolCallRequest[],
  round: number,
  signal: AbortSignal,
): Promise<ToolOutcome[]> {
  if (round >= tools.maxRounds)
    return calls.map((call) => ({
      ...roundsSpent(tools.maxRounds),
      note: { tool: call.name.slice(0, 80), outcome: 'refused' as const },
    }));
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) outcomes.push(await tools.call(call, signal));
  return outcomes;
}
