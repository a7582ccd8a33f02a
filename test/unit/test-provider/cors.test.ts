import { afterEach, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_BROWSER_HEADER,
  type CorsMode,
  startProvider,
  type TestProvider,
} from '../../provider/server.ts';

const ORIGIN = 'http://127.0.0.1:4173';
let p: TestProvider | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

async function preflight(mode: CorsMode, requestHeaders: string, method = 'POST') {
  p = await startProvider({ cors: mode });
  return fetch(`${p.baseURL}/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
    },
  });
}

const chatBody = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] });

describe('CORS preflight', () => {
  it('strict: allows authorization and content-type, never cached, with CORP', async () => {
    const res = await preflight('strict', 'authorization,content-type');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type, accept');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-max-age')).toBe('0');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
  });

  for (const extra of ['x-stainless-os', 'x-test-fault', 'anthropic-version']) {
    it(`strict: a preflight asking for ${extra} gets 403 and no Access-Control-Allow-* header`, async () => {
      const res = await preflight('strict', `authorization,content-type,${extra}`);
      expect(res.status).toBe(403);
      const allowHeaders = [...res.headers.keys()].filter((h) => h.startsWith('access-control-allow'));
      expect(allowHeaders).toEqual([]);
    });
  }

  it('strict: a preflight for another method (PUT) fails', async () => {
    const res = await preflight('strict', 'content-type', 'PUT');
    expect(res.status).toBe(403);
  });

  it('open and anthropic: any requested header is allowed, echoed back', async () => {
    for (const mode of ['open', 'anthropic'] as const) {
      const res = await preflight(mode, 'authorization,content-type,x-stainless-os,x-test-fault');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-headers')).toBe(
        'authorization, content-type, x-stainless-os, x-test-fault',
      );
      await p!.close();
      p = undefined;
    }
  });

  it('a preflight without Origin is refused', async () => {
    p = await startProvider();
    const res = await fetch(`${p.baseURL}/chat/completions`, { method: 'OPTIONS' });
    expect(res.status).toBe(403);
  });
});

describe('CORS on actual requests', () => {
  it('echoes the origin, exposes Retry-After, and sends CORP', async () => {
    p = await startProvider();
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fault:429', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
  });

  it('anthropic: a browser request without the opt-in header gets 401 like Anthropic’s', async () => {
    p = await startProvider({ cors: 'anthropic' });
    const res = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', 'x-api-key': 'k' },
      body: chatBody,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(await res.json()).toEqual({
      type: 'error',
      error: {
        type: 'authentication_error',
        message: `CORS requests must set '${ANTHROPIC_BROWSER_HEADER}' header`,
      },
    });
  });

  it('anthropic: with the opt-in header, or from a server (no Origin), the request is answered', async () => {
    p = await startProvider({ cors: 'anthropic', apiKey: 'k' });
    const withHeader = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        origin: ORIGIN,
        'content-type': 'application/json',
        'x-api-key': 'k',
        [ANTHROPIC_BROWSER_HEADER]: 'true',
      },
      body: chatBody,
    });
    expect(withHeader.status).toBe(200);
    const noOrigin = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: chatBody,
    });
    expect(noOrigin.status).toBe(200);
    const wrongValue = await fetch(`${p.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', [ANTHROPIC_BROWSER_HEADER]: 'yes' },
      body: chatBody,
    });
    expect(wrongValue.status).toBe(401);
  });
});
