import { describe, expect, it } from 'vitest';
import {
  createSecretScrubber,
  lastFour,
  maskKey,
  mayHoldSecretEnding,
  redactSecrets,
  removeSecrets,
} from '../../../src/vault/redact.ts';

const KEY = 'sk-proj-TESTKEY0123456789abcdef+/WXYZ';

describe('redactSecrets', () => {
  it('replaces a key quoted back in an error body with its mask', () => {
    const body = `{"error":{"message":"Incorrect API key provided: ${KEY}. You can find your API key at ..."}}`;
    const out = redactSecrets(body, [KEY]);
    expect(out).not.toContain(KEY);
    expect(out).toContain('Incorrect API key provided: …WXYZ.');
  });

  it('catches URL-encoded, JSON-escaped and base64 (Basic auth) echoes', () => {
    const quoted = 'key-with"quote\\and/slash+plus-1234';
    const b64 = Buffer.from(`:${KEY}`).toString('base64');
    const text = [
      `url: ?key=${encodeURIComponent(KEY)}`,
      `json: ${JSON.stringify({ k: quoted })}`,
      `basic: Authorization: Basic ${b64}`,
      `plain b64: ${Buffer.from(KEY).toString('base64')}`,
    ].join('\n');
    const out = redactSecrets(text, [KEY, quoted]);
    expect(out).not.toContain(encodeURIComponent(KEY));
    expect(out).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(out).not.toContain(b64);
    expect(out).not.toContain(Buffer.from(KEY).toString('base64').replace(/=+$/, ''));
    expect(out.match(/…WXYZ/g)?.length).toBe(3);
    expect(out).toContain('…1234');
  });

  it('replaces every occurrence, the longest secret first, and leaves other text alone', () => {
    const short = 'abcd1234efgh';
    const long = `${short}-suffix-9999`;
    const out = redactSecrets(`${long} and ${short} and ${short}`, [short, long, undefined, '', 'ab']);
    expect(out).toBe('…9999 and …efgh and …efgh');
    expect(redactSecrets('nothing secret here', [KEY])).toBe('nothing secret here');
  });

  it('masks short keys without revealing characters', () => {
    expect(lastFour('short-key')).toBe('••••');
    expect(maskKey('short-key')).toBe('…••••');
    expect(lastFour('exactly-12ch')).toBe('12ch');
    expect(redactSecrets('token=short-key;', ['short-key'])).toBe('token=…••••;');
  });
});

describe('removeSecrets and the streaming scrubber', () => {
  const SECRET = 'sk-stream-test-0123456789';
  const OTHER = 'gsk_other-key-ABCDEFGHIJ';
  const text = `a ${SECRET} b ${Buffer.from(SECRET).toString('base64')} c ${OTHER}.`;
  const clean = `a [redacted key] b [redacted key] c [redacted key].`;

  it('replaces every form with the marker and counts distinct secrets', () => {
    expect(removeSecrets(text, [SECRET, OTHER, 'ab'])).toEqual({ text: clean, removed: 2 });
    expect(removeSecrets('nothing here', [SECRET])).toEqual({ text: 'nothing here', removed: 0 });
  });

  it('finds a secret split at any point between two pieces, and holds back only a possible start', () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const scrubber = createSecretScrubber([SECRET, OTHER]);
      const out = scrubber.push(text.slice(0, cut)) + scrubber.push(text.slice(cut)) + scrubber.end();
      // A cut between base64 and its padding may leave the `=` padding after the marker: nothing secret.
      expect(out.replace(/\[redacted key\]=+/g, '[redacted key]'), `cut at ${cut}`).toBe(clean);
      expect(scrubber.removed).toBe(2);
    }
    const scrubber = createSecretScrubber([SECRET]);
    expect(scrubber.push('plain words, ')).toBe('plain words, ');
    expect(scrubber.push('then sk-str')).toBe('then ');
    expect(scrubber.push('ong words.')).toBe('sk-strong words.');
  });
});

// The README says what redaction covers and what it does not (Settings → Pool and API keys): this keeps
// what it says true. A saved key changed in any way but the encodings listed passes as written.
describe('what redaction does not cover, as the README says', () => {
  const SECRET = 'sk-proj-Readme0123456789abcdef';
  it('leaves a key split by a space or a line break, reversed, in other case, cut short or in hex', () => {
    const changed = [
      `${SECRET.slice(0, 10)} ${SECRET.slice(10)}`,
      `${SECRET.slice(0, 10)}\n${SECRET.slice(10)}`,
      [...SECRET].reverse().join(''),
      SECRET.toUpperCase(),
      SECRET.slice(0, -1),
      Buffer.from(SECRET).toString('hex'),
    ];
    for (const text of changed)
      expect(removeSecrets(`x ${text} y`, [SECRET])).toEqual({ text: `x ${text} y`, removed: 0 });
  });

  it('removes it as typed, URL-encoded, JSON-escaped and in base64 (standard, unpadded, URL-safe, of :key)', () => {
    const key = 'sk-a/b+c"d?e';
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    const forms = [
      key,
      encodeURIComponent(key),
      JSON.stringify(key).slice(1, -1),
      b64(key),
      b64(key).replace(/=+$/, ''),
      b64(key).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
      b64(`:${key}`),
    ];
    for (const form of forms) expect(removeSecrets(`x ${form} y`, [key]).removed).toBe(1);
  });
});

describe('mayHoldSecretEnding (what a locked vault can prove of a body)', () => {
  const KEY = 'sk-locked-proof-0123WXyz';
  const ending = lastFour(KEY);

  it('finds every form removeSecrets removes, whatever precedes it', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const forms = [
      KEY,
      encodeURIComponent(KEY),
      JSON.stringify(KEY),
      b64(KEY),
      b64(`:${KEY}`),
      b64(KEY).replace(/=+$/, ''),
      b64(KEY).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    ];
    for (const form of forms)
      for (const before of ['', ' ', 'Basic ', 'x', 'xy', 'xyz', 'abcd'])
        expect(
          mayHoldSecretEnding(`{"content":"${before}${form} after"}`, [ending]),
          `${before}${form}`,
        ).toBe(true);
  });

  it('proves a body free of keys, and never rules out an ending it cannot search for', () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'What is 2+2? aGVsbG8gd29ybGQ=' }] });
    expect(mayHoldSecretEnding(body, [ending])).toBe(false);
    expect(mayHoldSecretEnding(body, [])).toBe(false);
    // A short key has no ending on record; an ending JSON or URL encoding would change cannot be searched.
    expect(mayHoldSecretEnding(body, ['••••'])).toBe(true);
    expect(mayHoldSecretEnding(body, ['ab"c'])).toBe(true);
  });
});
