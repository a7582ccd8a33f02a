/**
 * Tool calling on OpenAI's Chat Completions wire, as OpenAI documents it
 * (https://platform.openai.com/docs/guides/function-calling?api-mode=chat, and streaming:
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming): `tools` of `{type: 'function',
 * function: {name, description, parameters}}`; streamed `delta.tool_calls` whose first piece for an `index`
 * carries `id` and `function.name` and whose later pieces add `function.arguments` text; `finish_reason`
 * `tool_calls`; then an assistant turn with `tool_calls` and one `{role: 'tool', tool_call_id, content}`
 * per call. `tool_choice: 'none'` makes the model answer without calling (the last round). Mistral, Groq,
 * Gemini's OpenAI endpoint, DeepSeek, xAI, Together and OpenRouter take the same fields.
 */
import type { ToolCallRequest, ToolOutcome, ToolUse } from './tool-use.ts';

export interface OpenAIToolFields {
  tools: { type: 'function'; function: { name: string; description: string; parameters: unknown } }[];
  tool_choice?: 'none';
}

/** The request's tool fields: every granted tool, and on the round past the limit, no more calls. */
export function openaiToolFields(tools: ToolUse, callsAllowed: boolean): OpenAIToolFields {
  return {
    tools: tools.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    })),
    ...(callsAllowed ? {} : { tool_choice: 'none' }),
  };
}

/** The tool calls of one streamed answer, put together from their pieces by `index`. */
export class OpenAIToolCalls {
  private readonly byIndex = new Map<number, { id: string; name: string; arguments: string }>();

  /** Reads a delta's `tool_calls`; returns the names of calls that began in it. */
  add(delta: unknown): string[] {
    const pieces = (delta as { tool_calls?: unknown } | null)?.tool_calls;
    if (!Array.isArray(pieces)) return [];
    const began: string[] = [];
    for (const piece of pieces as {
      index?: unknown;
      id?: unknown;
      function?: { name?: unknown; arguments?: unknown };
    }[]) {
      const index = typeof piece?.index === 'number' ? piece.index : this.byIndex.size;
      let call = this.byIndex.get(index);
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        this.byIndex.set(index, call);
      }
      if (typeof piece.id === 'string' && piece.id) call.id = piece.id;
      if (typeof piece.function?.name === 'string' && piece.function.name) {
        if (!call.name) began.push(piece.function.name);
        call.name += piece.function.name;
      }
      if (typeof piece.function?.arguments === 'string') call.arguments += piece.function.arguments;
    }
    return began;
  }

  list(): ToolCallRequest[] {
    return [...this.byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments,
      }));
  }
}

/** The assistant's turn that asked for `calls`, and one `tool` turn with each call's outcome. */
export function openaiToolTurns(
  text: string,
  calls: readonly ToolCallRequest[],
  outcomes: readonly ToolOutcome[],
): Record<string, unknown>[] {
  return [
    {
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : '{}' },
      })),
    },
    ...calls.map((call, i) => ({ role: 'tool', tool_call_id: call.id, content: outcomes[i]?.content ?? '' })),
  ];
}
