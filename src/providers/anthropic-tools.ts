/**
 * Tool calling on Anthropic's Messages API, as Anthropic documents it
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use, streamed:
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#streaming-request-with-tool-use): `tools`
 * of `{name, description, input_schema}`; a `tool_use` content block `{id, name, input: {}}` whose input
 * streams as `input_json_delta` pieces of `partial_json`; `stop_reason` `tool_use`; then the assistant turn
 * with its `tool_use` blocks, and a user turn of one `{type: 'tool_result', tool_use_id, content, is_error}`
 * per call. `tool_choice: {type: 'none'}` makes the model answer without calling (the last round).
 */
import type { ToolCallRequest, ToolOutcome, ToolUse } from './tool-use.ts';

export interface AnthropicToolFields {
  tools: { name: string; description: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: 'none' };
}

export function anthropicToolFields(tools: ToolUse, callsAllowed: boolean): AnthropicToolFields {
  return {
    tools: tools.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    })),
    ...(callsAllowed ? {} : { tool_choice: { type: 'none' } }),
  };
}

/** One answer's text and `tool_use` blocks, by their content block index, put together from the stream. */
export class AnthropicToolBlocks {
  private text = '';
  private readonly uses = new Map<number, { id: string; name: string; json: string }>();

  addText(text: string): void {
    this.text += text;
  }

  /** A `content_block_start`: the name of the tool whose call began, if it is a `tool_use` block. */
  start(index: unknown, block: Record<string, unknown> | undefined): string | undefined {
    if (block?.type !== 'tool_use' || typeof index !== 'number') return undefined;
    const name = typeof block.name === 'string' ? block.name : '';
    const id = typeof block.id === 'string' ? block.id : `toolu_${index}`;
    // A block that starts with its whole input (a proxy's; the docs' start with `{}`) keeps it.
    const input = block.input;
    const json =
      input && typeof input === 'object' && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
    this.uses.set(index, { id, name, json });
    return name;
  }

  /** A `content_block_delta` of type `input_json_delta`. */
  delta(index: unknown, delta: { type?: unknown; partial_json?: unknown } | undefined): void {
    if (delta?.type !== 'input_json_delta' || typeof index !== 'number') return;
    const use = this.uses.get(index);
    if (use && typeof delta.partial_json === 'string') use.json += delta.partial_json;
  }

  calls(): ToolCallRequest[] {
    return [...this.uses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, use]) => ({ id: use.id, name: use.name, arguments: use.json || '{}' }));
  }

  /** The assistant turn that asked for the calls, and the user turn with their results. */
  turns(calls: readonly ToolCallRequest[], outcomes: readonly ToolOutcome[]): Record<string, unknown>[] {
    return [
      {
        role: 'assistant',
        content: [
          ...(this.text.trim() ? [{ type: 'text', text: this.text }] : []),
          ...calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) })),
        ],
      },
      {
        role: 'user',
        content: calls.map((call, i) => ({
          type: 'tool_result',
          tool_use_id: call.id,
          content: outcomes[i]?.content ?? '',
          ...(outcomes[i]?.isError ? { is_error: true } : {}),
        })),
      },
    ];
  }
}

/** The call's input as the object Anthropic wants back (`{}` for input that is no JSON object). */
function inputOf(call: ToolCallRequest): Record<string, unknown> {
  try {
    const value = typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments;
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
