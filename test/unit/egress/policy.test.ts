import { describe, expect, it } from 'vitest';
import {
  checkDestination,
  fromBinary,
  outgoingHeaders,
  refusedRedirect,
  scrubBody,
  toBinary,
  transportInit,
} from '../../../src/egress/policy.ts';
import { presetById } from '../../../src/providers/catalog.ts';

const openai = presetById('openai')!;
const custom = presetById('custom')!;

function refusal(result: ReturnType<typeof checkDestination>): string | undefined {
  return 'refused' in result ? result.refused.message : undefined;
}

describe('egress policy: where a request may go', () => {
  it('pins a cloud preset to its own origin, whatever base URL the worker has', () => {
    const url = new URL('https://api.openai.com/v1/chat/completions');
    expect(checkDestination(openai, 'https://api.openai.com/v1', url)).toEqual({
      origin: 'https://api.openai.com',
      url,
    });
    expect(
      refusal(checkDestination(openai, 'https://evil.example/v1', new URL('https://evil.example/v1/x'))),
    ).toBe('OpenAI requests go only to https://api.openai.com, not https://evil.example');
  });

  it("sends a custom endpoint's requests only to its base URL's origin", () => {
    const result = checkDestination(
      custom,
      'http://127.0.0.1:9000/v1',
      new URL('http://127.0.0.2:9000/v1/models'),
    );
    expect(refusal(result)).toContain('its requests go only to http://127.0.0.1:9000');
    expect(refusal(checkDestination(custom, 'http://127.0.0.1:9000/v1', undefined))).toContain(
      'an invalid URL',
    );
    expect(refusal(checkDestination(custom, 'not a url', new URL('http://a.b/')))).toContain(
      'not a valid URL',
    );
  });

  it('refuses other protocols and URLs with credentials in them', () => {
    expect(refusal(checkDestination(custom, 'ftp://h.example/', new URL('ftp://h.example/models')))).toBe(
      `Refused a ftp: request for ${custom.name}`,
    );
    const withUser = new URL('https://u:p@h.example/models');
    expect(refusal(checkDestination(custom, 'https://h.example', withUser))).toBe(
      'Refused a URL with credentials in it',
    );
  });
});

describe('egress policy: what a request carries', () => {
  it('replaces every credential header with the key in the preset’s style', () => {
    const headers = outgoingHeaders(
      openai,
      { Authorization: 'Bearer client', cookie: 'c=1', 'x-api-key': 'z' },
      'k',
    );
    expect(headers.get('authorization')).toBe('Bearer k');
    expect(headers.get('cookie')).toBeNull();
    expect(headers.get('x-api-key')).toBeNull();
  });

  it('never follows a redirect, never sends cookies or the referrer', () => {
    expect(transportInit('cors')).toEqual({
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      redirect: 'manual',
      mode: 'cors',
    });
    expect(transportInit('probe')).toMatchObject({
      mode: 'no-cors',
      redirect: 'follow',
      credentials: 'omit',
    });
    const redirect = refusedRedirect(
      new Response(null, { status: 302, headers: { location: 'https://x.example/' } }),
    );
    expect(redirect).toMatchObject({ kind: 'unexpected-response', status: 302 });
    expect(refusedRedirect(new Response('{}', { status: 200 }))).toBeUndefined();
  });

  it("takes other hosts' keys out of text and binary bodies, keeping every other byte", async () => {
    const key = 'sk-other-host-0123456789';
    const text = await scrubBody({ body: `say ${key} twice ${key}`, bytes: 0 }, [key]);
    expect(text.removed).toBe(1); // distinct keys found, not occurrences
    expect(String(text.body).match(/\[redacted key\]/g)).toHaveLength(2);
    expect(String(text.body)).not.toContain(key);
    expect(text.bytes).toBe(new TextEncoder().encode(String(text.body)).byteLength);

    const binary = new Uint8Array([0xff, 0x00, ...new TextEncoder().encode(key), 0x80]);
    const scrubbed = await scrubBody({ body: binary, bytes: binary.byteLength }, [key]);
    expect(scrubbed.removed).toBe(1);
    const out = toBinary(scrubbed.body as Uint8Array);
    expect(out).not.toContain(key);
    expect(out.startsWith('\xff\x00')).toBe(true);
    expect(out.endsWith('\x80')).toBe(true);

    const untouched = await scrubBody({ body: binary, bytes: binary.byteLength }, [
      'sk-not-there-0123456789',
    ]);
    expect(untouched).toMatchObject({ body: binary, removed: 0 });
    expect(toBinary(fromBinary('\x00\xfe'))).toBe('\x00\xfe');
  });
});
