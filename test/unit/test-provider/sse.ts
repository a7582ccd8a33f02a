/** Test helpers: read a provider response's SSE body as it arrives, the way a client would. */

export interface SseRead {
  /** Every `data:` payload in order, `[DONE]` included. */
  data: string[];
  /** Set when reading the body failed (cut stream). */
  error?: unknown;
}

/** Reads the whole SSE body; a body that breaks off is returned with `error` set, not thrown. */
export async function readSse(response: Response): Promise<SseRead> {
  const data: string[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        for (const line of buffer.slice(0, end).split('\n')) {
          if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
        }
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
      }
    }
  } catch (error) {
    return { data, error };
  }
  return { data };
}

export interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

/** The JSON chunks of a read (without `[DONE]`). */
export function chunks(read: SseRead): Chunk[] {
  return read.data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Chunk);
}

/** The streamed text: every content delta joined. */
export function streamedText(list: Chunk[]): string {
  return list.map((c) => c.choices[0]?.delta.content ?? '').join('');
}
