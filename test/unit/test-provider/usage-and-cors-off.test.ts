import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProvider, type TestProvider } from '../../provider/server.ts';
import { readSse } from './sse.ts';

// Two ways a real server differs from OpenAI that the app must cope with: no usage at all, and no CORS.

let silent: TestProvider;
let off: TestProvider;
beforeAll(async () => {
  silent = await startProvider({ cors: 'open', usage: 'never' });
  off = await startProvider({ cors: 'off' });
});
afterAll(async () => {
  await silent.close();
  await off.close();
});

const chat = (provider: TestProvider, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${provider.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'one two three' }], ...body }),
  });

describe("usage: 'never'", () => {
  it('sends no usage in a stream, even when include_usage asks for it', async () => {
    const { data } = await readSse(
      await chat(silent, { stream: true, stream_options: { include_usage: true } }),
    );
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>);
    expect(chunks.map((c) => c.choices)).not.toContainEqual([]);
    expect(chunks.filter((c) => 'usage' in c)).toEqual([]);
    expect(data.join('')).toContain('three');
  });

  it('sends no usage in a JSON answer', async () => {
    const body = (await (await chat(silent, {})).json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty('usage');
    expect(body).toHaveProperty('choices');
  });
});

describe("cors: 'off'", () => {
  it('answers a request from a page with no CORS or CORP header, and a preflight with a bare 404', async () => {
    const res = await chat(off, {}, { origin: 'http://app.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('cross-origin-resource-policy')).toBeNull();
    const preflight = await fetch(`${off.baseURL}/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(404);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
