/**
 * The test provider's tool calling, for a model scripted with `toolCalls`: it asks for the scripted calls
 * round after round (whatever their names: a real model may name a tool it was not offered), then answers
 * with what the tool results said. Both wires as their providers document them:
 *   - OpenAI Chat Completions, https://platform.openai.com/docs/guides/function-calling?api-mode=chat and
 *     https://platform.openai.com/docs/api-reference/chat-streaming/streaming: streamed `delta.tool_calls`
 *     (the first piece of each call with `id`, `type` and `function.name`, then `function.arguments` pieces),
 *     `finish_reason: "tool_calls"`; results come back as `{role: "tool", tool_call_id, content}` after the
 *     assistant turn with `tool_calls`, and a `tool` turn without one is a 400, as OpenAI answers it;
 *     `tool_choice: "none"` makes the model answer.
 *   - Anthropic Messages, https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use and
 *     https://docs.anthropic.com/en/docs/build-with-claude/streaming#streaming-request-with-tool-use: a
 *     `tool_use` content block with `input: {}` whose input streams as `input_json_delta`, `stop_reason:
 *     "tool_use"`; results come back as `tool_result` blocks in the next user turn, and a `tool_use` without
 *     one is a 400, as Anthropic answers it; `tool_choice: {type: "none"}` makes the model answer.
 */
import type { ServerResponse } from 'node:http';

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolCallScript {
  /** The calls asked for in each round; after the last round the model answers. */
  rounds: ScriptedToolCall[][];
  /** Ask for the last round's calls again and again, whatever it is told (a model that loops). */
  loop?: boolean;
  /** The answer once the rounds are done (default: every tool result it read, quoted). */
  answer?: string;
}

type Turn = { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/** What the model answers once its rounds are done: every tool result it was given, in order. */
function finalAnswer(results: string[]): string {
  return results.length > 0 ? `Tool results: ${results.join(' | ')}` : 'No tool results.';
}

function roundOf(
  script: ToolCallScript,
  done: number,
  offered: boolean,
  choiceNone: boolean,
): ScriptedToolCall[] | undefined {
  if (!offered) return undefined;
  // A looping model ignores even "no more calls"; any other answers once told so.
  if (script.loop && done >= script.rounds.length - 1) return script.rounds.at(-1);
  if (choiceNone) return undefined;
  return script.rounds[done];
}

function sse(res: ServerResponse, cors: Record<string, string>) {
  res.writeHead(200, {
    ...cors,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
}

function badRequest(res: ServerResponse, cors: Record<string, string>, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(400, {
    ...cors,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** OpenAI: the request's tool turns checked, then one streamed round. */
export function openaiToolChat(
  res: ServerResponse,
  cors: Record<string, string>,
  script: ToolCallScript,
  request: { model: string; messages: Turn[]; tools?: unknown; tool_choice?: unknown },
): void {
  const answered = new Set<string>();
  const asked: string[] = [];
  const results: string[] = [];
  let rounds = 0;
  for (const turn of request.messages) {
    if (turn.role === 'assistant' && Array.isArray(turn.tool_calls)) {
      rounds++;
      for (const call of turn.tool_calls as { id?: unknown }[]) asked.push(String(call.id));
    } else if (turn.role === 'tool') {
      const id = String(turn.tool_call_id);
      if (!asked.includes(id)) {
        badRequest(res, cors, {
          error: {
            message:
              "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            type: 'invalid_request_error',
            param: 'messages',
            code: null,
          },
        });
        return;
      }
      answered.add(id);
      results.push(String(turn.content));
    }
  }
  const missing = asked.filter((id) => !answered.has(id));
  if (missing.length > 0) {
    badRequest(res, cors, {
      error: {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        type: 'invalid_request_error',
        param: 'messages',
        code: null,
      },
    });
    return;
  }
  const offered = Array.isArray(request.tools) && request.tools.length > 0;
  const calls = roundOf(script, rounds, offered, request.tool_choice === 'none');
  sse(res, cors);
  const base = {
    id: `chatcmpl-tools${rounds}`,
    object: 'chat.completion.chunk',
    created: 0,
    model: request.model,
  };
  const chunk = (delta: unknown, finish: string | null) =>
    res.write(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
    );
  chunk({ role: 'assistant', content: null }, null);
  if (calls) {
    calls.forEach((call, index) => {
      const id = `call_r${rounds}_${index}`;
      chunk(
        { tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] },
        null,
      );
      const json = JSON.stringify(call.arguments);
      const half = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)])
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null);
    });
    chunk({}, 'tool_calls');
  } else {
    chunk({ content: script.answer ?? finalAnswer(results) }, null);
    chunk({}, 'stop');
  }
  res.write(
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

/** Anthropic: the request's tool turns checked, then one streamed round. */
export function anthropicToolMessages(
  res: ServerResponse,
  cors: Record<string, string>,
  script: ToolCallScript,
  request: { model: string; messages: Turn[]; tools?: unknown; tool_choice?: { type?: unknown } },
): void {
  const results: string[] = [];
  let rounds = 0;
  const turns = request.messages;
  for (let i = 0; i < turns.length; i++) {
    const blocks = Array.isArray(turns[i]?.content) ? (turns[i]?.content as Record<string, unknown>[]) : [];
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
    if (turns[i]?.role === 'assistant' && uses.length > 0) {
      rounds++;
      const next = Array.isArray(turns[i + 1]?.content)
        ? (turns[i + 1]?.content as Record<string, unknown>[])
        : [];
      const resultIds = next.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id));
      const missing = uses.filter((id) => !resultIds.includes(id));
      if (missing.length > 0) {
        badRequest(res, cors, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          },
        });
        return;
      }
    }
    for (const block of blocks)
      if (block.type === 'tool_result')
        results.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
  }
  const offered = Array.isArray(request.tools) && request.tools.length > 0;
  const calls = roundOf(script, rounds, offered, request.tool_choice?.type === 'none');
  sse(res, cors);
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      id: `msg_tools${rounds}`,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if (calls) {
    calls.forEach((call, index) => {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: `toolu_r${rounds}_${index}`, name: call.name, input: {} },
      });
      const json = JSON.stringify(call.arguments);
      const half = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)])
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      event('content_block_stop', { index });
    });
    event('message_delta', {
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 5 },
    });
  } else {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', {
      index: 0,
      delta: { type: 'text_delta', text: script.answer ?? finalAnswer(results) },
    });
    event('content_block_stop', { index: 0 });
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    });
  }
  event('message_stop', {});
  res.end();
}
