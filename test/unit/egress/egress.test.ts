import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConnection } from '../../../src/egress/connection-test.ts';
import { createEgress, type KeySource } from '../../../src/egress/egress.ts';
import { type Ledger, openLedger } from '../../../src/egress/ledger.ts';
import { outgoingHeaders } from '../../../src/egress/policy.ts';
import { CATALOG, type ProviderPreset, presetById } from '../../../src/providers/catalog.ts';
import { ProviderError } from '../../../src/providers/errors.ts';
import { openVault, type Vault } from '../../../src/vault/vault.ts';
import { startProvider, type TestProvider } from '../../provider/server.ts';

const KEY_A = 'sk-test-AAAAAAAAAAAAAAAAAAAA';
const KEY_B = 'sk-ant-test-BBBBBBBBBBBBBBBB';

let a: TestProvider;
let b: TestProvider;
/** A second keyed host and a keyless one, for the by-origin and scrubbing tests. */
let keyed: TestProvider;
let keyless: TestProvider;
const KEY_K = 'sk-keyed-host-KKKKKKKKKKKKKK';
let ledger: Ledger;
let dbCount = 0;

/** Keys bound to origins, as the vault binds them. */
function keys(bindings: Record<string, { origin: string; key: string }>): KeySource {
  return {
    async keyFor(providerId, origin) {
      const binding = bindings[providerId];
      return binding && binding.origin === origin ? binding.key : undefined;
    },
    async keysNotBoundTo(origin) {
      return Object.values(bindings)
        .filter((b) => b.origin !== origin)
        .map((b) => b.key);
    },
  };
}

/** Test presets pointing at the test provider: "custom" with a bearer key, and an Anthropic-style one. */
function presets(overrides: Partial<ProviderPreset> = {}) {
  return (id: string): ProviderPreset | undefined => {
    if (id === 'p-bearer')
      return { ...presetById('custom')!, id, name: 'Bearer test', needsKey: true, ...overrides };
    if (id === 'p-anthropic')
      return { ...presetById('anthropic')!, id, name: 'Anthropic test', baseURLEditable: true };
    return presetById(id);
  };
}

beforeAll(async () => {
  a = await startProvider({ apiKey: KEY_A });
  b = await startProvider({ apiKey: KEY_B, cors: 'anthropic' });
  keyed = await startProvider({ apiKey: KEY_K });
  keyless = await startProvider({});
});
afterAll(async () => {
  await a.close();
  await b.close();
  await keyed.close();
  await keyless.close();
});
beforeEach(async () => {
  ledger = await openLedger(`ledger-test-${dbCount++}`);
  for (const p of [a, b, keyed, keyless]) p.clearRequests();
});

function egressFor(
  overrides: Partial<ProviderPreset> = {},
  writeTo: Pick<Ledger, 'add' | 'update'> = ledger,
) {
  return createEgress({
    vault: keys({ 'p-bearer': { origin: a.url, key: KEY_A }, 'p-anthropic': { origin: b.url, key: KEY_B } }),
    ledger: writeTo,
    presetFor: presets(overrides),
  });
}

const chatBody = (model: string, stream = false) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'hello there world' }],
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });

/** Headers as the openai SDK builds them (v6, browser). */
const sdkHeaders = {
  Accept: 'application/json',
  'Content-Type': 'application/json',
  Authorization: 'Bearer placeholder-key',
  'X-Stainless-Lang': 'js',
  'X-Stainless-OS': 'Linux',
  'X-Stainless-Arch': 'x64',
  'X-Stainless-Runtime': 'browser:chrome',
  'X-Stainless-Retry-Count': '0',
  'OpenAI-Organization': 'org-x',
};

describe('outgoingHeaders', () => {
  it('replaces the client authorization with the key, bearer style, and strips SDK headers', () => {
    const h = outgoingHeaders(presetById('openai')!, sdkHeaders, 'k1');
    expect([...h.keys()].sort()).toEqual(['accept', 'authorization', 'content-type']);
    expect(h.get('authorization')).toBe('Bearer k1');
  });

  it('uses x-api-key and adds the Anthropic browser headers', () => {
    const h = outgoingHeaders(presetById('anthropic')!, sdkHeaders, 'k2');
    expect(h.get('authorization')).toBeNull();
    expect(h.get('x-api-key')).toBe('k2');
    expect(h.get('anthropic-dangerous-direct-browser-access')).toBe('true');
    expect(h.get('anthropic-version')).toBe('2023-06-01');
    expect([...h.keys()].filter((n) => n.startsWith('x-stainless'))).toEqual([]);
  });

  it('sends no credentials at all for auth style none, even if the client put some', () => {
    const h = outgoingHeaders(presetById('ollama')!, { ...sdkHeaders, 'x-api-key': 'zzz' }, 'k3');
    expect(h.get('authorization')).toBeNull();
    expect(h.get('x-api-key')).toBeNull();
  });

  it('keeps the SDK headers (but never its credentials) when a preset does not strip them', () => {
    const preset = { ...presetById('custom')!, stripSdkHeaders: false };
    const h = outgoingHeaders(preset, sdkHeaders, undefined);
    expect(h.get('x-stainless-os')).toBe('Linux');
    expect(h.get('authorization')).toBeNull();
  });
});

describe('egress', () => {
  it('sends the key to its own origin only, and records one ledger entry with the fields', async () => {
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL, runId: 'r1', stepIndex: 2 });
    const body = chatBody('echo');
    const response = await fetchA(`${a.baseURL}/chat/completions`, {
      method: 'POST',
      headers: sdkHeaders,
      body,
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]!.message.content).toBe('hello there world');

    const sent = a.requests.filter((r) => r.method === 'POST');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(
      Object.keys(sent[0]!.headers).filter((n) => n.startsWith('x-stainless') || n.startsWith('openai-')),
    ).toEqual([]);

    const entries = await ledger.list();
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry).toMatchObject({
      runId: 'r1',
      stepIndex: 2,
      purpose: 'chat',
      providerId: 'p-bearer',
      host: new URL(a.url).host,
      method: 'POST',
      path: '/v1/chat/completions',
      sent: true,
      keyAttached: true,
      state: 'done',
      status: 200,
      bytesOut: new TextEncoder().encode(body).byteLength,
      promptTokens: 3,
      completionTokens: 3,
    });
    expect(entry.bytesIn).toBe(new TextEncoder().encode(JSON.stringify(json)).byteLength);
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(entries)).not.toContain(KEY_A);
  });

  it("holds a request until its baton's `ready` settles, its ledger entry written meanwhile", async () => {
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL });
    let release!: () => void;
    const ready = new Promise<void>((resolve) => {
      release = resolve;
    });
    const baton = { runId: 'r-ready', stepIndex: 1, workerId: 'w', providerId: 'p-bearer', ready };
    const init = { method: 'POST', headers: sdkHeaders, body: chatBody('echo'), baton };
    const answer = fetchA(`${a.baseURL}/chat/completions`, init as RequestInit);
    // The ledger entry is written while the request waits (the two writes overlap)...
    await expect.poll(async () => (await ledger.list({ runId: 'r-ready' })).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // ...and nothing has left until `ready` settles.
    expect(a.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    release();
    expect((await answer).status).toBe(200);
    expect(a.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('is idle once its requests have reached the provider (their heads are back), not once they are answered', async () => {
    const egress = egressFor();
    await egress.idle();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL });
    let release!: () => void;
    const ready = new Promise<void>((resolve) => {
      release = resolve;
    });
    const baton = { runId: 'r-idle', stepIndex: 0, workerId: 'w', providerId: 'p-bearer', ready };
    // A stream sends its head at once and its first token seconds later, as OpenAI's does.
    a.setModel({
      id: 'slow-idle',
      behaviour: { kind: 'echo' },
      latency: { firstTokenMs: 3000, perTokenMs: 0 },
    });
    const init = { method: 'POST', headers: sdkHeaders, body: chatBody('slow-idle', true), baton };
    const answer = fetchA(`${a.baseURL}/chat/completions`, init as RequestInit);
    let idle = false;
    void egress.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(idle).toBe(false);
    release();
    await egress.idle();
    // Not idle as soon as fetch was called: the request had reached the provider...
    expect(a.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    // ...and its answer, seconds away, is not in.
    const reader = (await answer).body!.getReader();
    const first = await Promise.race([
      reader.read().then(() => 'a chunk'),
      new Promise((resolve) => setTimeout(() => resolve('nothing yet'), 200)),
    ]);
    expect(first).toBe('nothing yet');
    await reader.cancel();
  });

  it("is not idle from an answer's last byte until a task after its end reached the reader", async () => {
    let land!: () => void;
    const landed = new Promise<void>((resolve) => {
      land = resolve;
    });
    // The answer's final ledger write is held: the answer has all arrived, its end not yet given out.
    const held = {
      add: (entry: Parameters<typeof ledger.add>[0]) => ledger.add(entry),
      update: async (entry: Parameters<typeof ledger.update>[0]) => {
        if (entry.state === 'done') await landed;
        return ledger.update(entry);
      },
    };
    const egress = egressFor({}, held);
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL });
    const response = await fetchA(`${a.baseURL}/chat/completions`, {
      method: 'POST',
      headers: sdkHeaders,
      body: chatBody('echo', true),
    });
    await egress.idle();
    let idle = false;
    const text = response.text();
    await new Promise((resolve) => setTimeout(resolve, 100));
    void egress.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    land();
    expect(await text).toContain('[DONE]');
    // Not in the microtasks after the end, which start whatever that end sets off: a task later.
    expect(idle).toBe(false);
    await egress.idle();
  });

  it('is idle after a refused request too', async () => {
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL });
    await expect(
      fetchA('https://elsewhere.example/v1/chat/completions', { method: 'POST' }),
    ).rejects.toThrow();
    await egress.idle();
  });

  it('refuses a request to another origin, sends nothing, and says so in the ledger', async () => {
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL, runId: 'r2', stepIndex: 0 });
    const error = await fetchA(`${b.baseURL}/chat/completions`, {
      method: 'POST',
      headers: sdkHeaders,
      body: chatBody('echo'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('refused');
    expect((error as ProviderError).message).not.toContain(KEY_A);
    expect(b.requests).toHaveLength(0);
    expect(a.requests).toHaveLength(0);
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({
      sent: false,
      keyAttached: false,
      state: 'error',
      host: new URL(b.url).host,
    });
  });

  it('refuses a cloud preset whose base URL is not its own origin, before asking for a key', async () => {
    let asked = 0;
    const egress = createEgress({
      vault: {
        keyFor: async () => {
          asked++;
          return 'sk-openai';
        },
        keysNotBoundTo: async () => [],
      },
      ledger,
    });
    const fetchOpenAI = egress.fetchFor({ providerId: 'openai', baseURL: a.baseURL });
    await expect(fetchOpenAI(`${a.baseURL}/models`)).rejects.toMatchObject({ kind: 'refused' });
    expect(asked).toBe(0);
    expect(a.requests).toHaveLength(0);
  });

  it('asks the vault for the key of the request origin, so a key bound elsewhere is never attached', async () => {
    // The vault binds p-bearer's key to b's origin; a request to a goes out without it (and is refused
    // before sending, since the preset needs a key).
    const egress = createEgress({
      vault: keys({ 'p-bearer': { origin: b.url, key: KEY_A } }),
      ledger,
      presetFor: presets(),
    });
    const error = await egress
      .request({ providerId: 'p-bearer', baseURL: a.baseURL, path: '/models' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth' });
    expect(a.requests).toHaveLength(0);
  });

  it('uses the x-api-key style and the Anthropic browser header, which the anthropic mode requires', async () => {
    const egress = egressFor();
    const response = await egress.request({ providerId: 'p-anthropic', baseURL: b.baseURL, path: '/models' });
    expect(response.status).toBe(200);
    await response.json();
    const [req] = b.requests;
    expect(req!.headers['x-api-key']).toBe(KEY_B);
    expect(req!.headers.authorization).toBeUndefined();
    expect(req!.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
  });

  it('counts bytes while the stream still streams, and takes the usage from the last SSE chunk', async () => {
    a.setModel({
      id: 'slowish',
      behaviour: { kind: 'fixed', text: 'one two three four five six' },
      latency: { firstTokenMs: 0, perTokenMs: 150 },
    });
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL, runId: 'r3', stepIndex: 0 });
    const response = await fetchA(`${a.baseURL}/chat/completions`, {
      method: 'POST',
      headers: sdkHeaders,
      body: chatBody('slowish', true),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let firstChunkAt = 0;
    let sawStreamingEntry = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!firstChunkAt) {
        firstChunkAt = Date.now();
        // The first chunk arrived before the answer was complete: streaming was not buffered.
        expect(text).not.toContain('[DONE]');
        const [entry] = await ledger.list();
        sawStreamingEntry = entry!.state === 'streaming' && entry!.status === 200;
      }
    }
    expect(sawStreamingEntry).toBe(true);
    expect(text).toContain('[DONE]');
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({ state: 'done', status: 200, promptTokens: 3, completionTokens: 6 });
    expect(entry!.bytesIn).toBe(new TextEncoder().encode(text).byteLength);
  });

  it('records an HTTP error status, and a network failure without any key in it', async () => {
    const egress = egressFor();
    const fetchA = egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL });
    const response = await fetchA(`${a.baseURL}/chat/completions`, {
      method: 'POST',
      headers: sdkHeaders,
      body: chatBody('no-such-model'),
    });
    expect(response.status).toBe(404);
    await response.text();

    const dead = createEgress({
      vault: keys({ 'p-bearer': { origin: 'http://127.0.0.1:1', key: KEY_A } }),
      ledger,
      presetFor: presets(),
    });
    await expect(
      dead.request({ providerId: 'p-bearer', baseURL: 'http://127.0.0.1:1/v1', path: '/models' }),
    ).rejects.toThrow();
    const all = await ledger.list();
    // The failure was told apart by a no-cors probe of the same host, which the ledger shows too.
    expect(all.filter((e) => e.purpose === 'probe').map((e) => e.state)).toEqual(['error']);
    const entries = all.filter((e) => e.purpose !== 'probe');
    expect(entries.map((e) => [e.status, e.state])).toEqual([
      [404, 'done'],
      [undefined, 'error'],
    ]);
    expect(entries[1]!.error).toContain('Nothing is listening at 127.0.0.1:1 (connection refused)');
    expect(await ledger.exportJSON()).not.toContain(KEY_A);
    expect(await ledger.exportCSV()).not.toContain(KEY_A);
  });

  it('records a request aborted mid-stream as an error, once', async () => {
    a.setModel({
      id: 'slow2',
      behaviour: { kind: 'fixed', text: 'a b c d e f g h' },
      latency: { firstTokenMs: 0, perTokenMs: 200 },
    });
    const egress = egressFor();
    const controller = new AbortController();
    const response = await egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL })(
      `${a.baseURL}/chat/completions`,
      {
        method: 'POST',
        headers: sdkHeaders,
        body: chatBody('slow2', true),
        signal: controller.signal,
      },
    );
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    const entries = await ledger.list();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ state: 'error', error: 'Aborted' });
    expect(entries[0]!.bytesIn).toBeGreaterThan(0);
  });

  it('keeps the key out of the ledger even when a cancel reason echoes it base64-encoded', async () => {
    const egress = egressFor();
    const response = await egress.fetchFor({ providerId: 'p-bearer', baseURL: a.baseURL })(
      `${a.baseURL}/chat/completions`,
      { method: 'POST', headers: sdkHeaders, body: chatBody('echo', true) },
    );
    const basic = btoa(`:${KEY_A}`);
    await response.body!.cancel(new Error(`bad credentials ${KEY_A} / Basic ${basic}`));
    const entries = await ledger.list();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.error).toContain('Cancelled by the reader');
    expect(entries[0]!.error).not.toContain(KEY_A);
    expect(entries[0]!.error).not.toContain(basic.replace(/=+$/, ''));
  });

  it('has a preset for every id the catalog lists', () => {
    for (const preset of CATALOG) expect(presetById(preset.id)).toBe(preset);
  });
});

describe('keys by origin, with the real vault', () => {
  let vault: Vault;
  beforeEach(async () => {
    vault = await openVault(`egress-vault-${dbCount++}`);
  });

  /** POSTs `body` to `p` as the custom provider, reads the answer whole, and returns the status. */
  const post = async (egress: ReturnType<typeof createEgress>, p: TestProvider, body: BodyInit) => {
    const response = await egress.fetchFor({ providerId: 'custom', baseURL: p.baseURL })(
      `${p.baseURL}/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body },
    );
    await response.text();
    return response.status;
  };

  it('a key saved for one custom host neither breaks another custom host nor reaches it', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    await vault.saveKey({ providerId: 'custom', origin: keyed.baseURL, key: KEY_K });
    const egress = createEgress({ vault, ledger });
    for (const p of [a, keyed, keyless]) expect(await post(egress, p, chatBody('echo'))).toBe(200);
    expect(a.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(keyed.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_K}`);
    expect(keyless.requests[0]!.headers.authorization).toBeUndefined();
    const entries = await ledger.list();
    expect(entries.map((e) => [e.host, e.keyAttached, e.state])).toEqual([
      [new URL(a.url).host, true, 'done'],
      [new URL(keyed.url).host, true, 'done'],
      [new URL(keyless.url).host, false, 'done'],
    ]);
  });

  it('a request that needs a key and has none for its host says so, naming the host', async () => {
    await vault.saveKey({ providerId: 'p-bearer', origin: a.baseURL, key: KEY_A });
    const egress = createEgress({ vault, ledger, presetFor: presets() });
    const error = await egress
      .fetchFor({ providerId: 'p-bearer', baseURL: keyed.baseURL })(`${keyed.baseURL}/models`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'auth' });
    expect((error as Error).message).toBe(
      `No key is saved for Bearer test at ${new URL(keyed.url).host}: add one in Settings → API keys`,
    );
    expect(keyed.requests).toHaveLength(0);
  });

  it('a 401 from a host that got no key, because none is saved for it, says so (not "the key was rejected")', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    const egress = createEgress({ vault, ledger });
    const error = await post(egress, keyed, chatBody('echo')).catch((e: unknown) => e);
    const host = new URL(keyed.url).host;
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'auth', status: 401, retryable: false });
    expect((error as Error).message).toBe(
      `Custom (OpenAI-compatible) at ${host} asks for a key (401), and no key is saved for ${host}: add one in Settings → API keys`,
    );
    const [entry] = await ledger.list();
    expect(entry).toMatchObject({ sent: true, keyAttached: false, status: 401, state: 'error' });
  });

  it('removes saved keys of other origins from a body, in every encoding, and the ledger says so', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    await vault.saveKey({ providerId: 'custom', origin: keyed.baseURL, key: KEY_K });
    const egress = createEgress({ vault, ledger });
    // As an earlier worker's answer would carry them into the next step's context.
    const leaky = JSON.stringify({
      model: 'echo',
      messages: [
        { role: 'user', content: 'Find the key.' },
        { role: 'assistant', content: `Found ${KEY_A} and ${Buffer.from(KEY_K).toString('base64')}.` },
        { role: 'user', content: 'Now check it.' },
      ],
    });
    expect(await post(egress, keyless, leaky)).toBe(200);
    const received = JSON.stringify(keyless.requests[0]!.body);
    expect(received).not.toContain(KEY_A);
    expect(received).not.toContain(Buffer.from(KEY_K).toString('base64'));
    expect(received).toContain('Found [redacted key] and [redacted key].');

    // To a key's own origin the body goes as it is, minus the other host's key.
    expect(await post(egress, a, leaky)).toBe(200);
    const toA = JSON.stringify(a.requests[0]!.body);
    expect(toA).toContain(KEY_A);
    expect(toA).not.toContain(Buffer.from(KEY_K).toString('base64'));

    // A binary body is scrubbed byte for byte too.
    const bytes = new TextEncoder().encode(leaky);
    expect(await post(egress, keyless, bytes)).toBe(200);
    expect(JSON.stringify(keyless.requests[1]!.body)).not.toContain(KEY_A);

    const entries = await ledger.list();
    expect(entries.map((e) => e.keysRemoved)).toEqual([2, 1, 2]);
    expect(entries[0]!.bytesOut).toBe(
      new TextEncoder().encode(JSON.stringify(keyless.requests[0]!.body)).byteLength,
    );
    expect(JSON.stringify(entries)).not.toContain(KEY_A);
    expect(await ledger.exportCSV()).toContain('keysRemoved');
  });

  it('does not send a body it cannot check: a locked vault holding keys of other hosts', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    await vault.setPassphrase('correct horse battery staple');
    vault.lock();
    const egress = createEgress({ vault, ledger });
    // An earlier answer quoting the key, base64-encoded: its last four characters are not in the body as
    // they are, but decoded they are, so the body cannot be shown to hold no key.
    const quoted = JSON.stringify({
      model: 'echo',
      messages: [{ role: 'user', content: `Basic ${Buffer.from(`:${KEY_A}`).toString('base64')}` }],
    });
    const error = await post(egress, keyless, quoted).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ProviderError', kind: 'refused' });
    expect((error as Error).message).toContain('locked');
    expect(keyless.requests).toHaveLength(0);
    // Without a body there is nothing to check: a keyless host's model list still works while locked.
    const models = await egress.fetchFor({ providerId: 'custom', baseURL: keyless.baseURL })(
      `${keyless.baseURL}/models`,
    );
    expect(models.status).toBe(200);
  });

  it('tests the connection to a keyless host while locked: its body holds no saved key, so it goes', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    await vault.setPassphrase('correct horse battery staple');
    vault.lock();
    const egress = createEgress({ vault, ledger });
    const result = await testConnection(egress, {
      providerId: 'custom',
      baseURL: keyless.baseURL,
      model: 'echo',
    });
    expect(result).toMatchObject({ ok: true });
    expect(keyless.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);

    // A saved key pasted into the model field would leave in the body: that one is still held back.
    keyless.clearRequests();
    const pasted = await testConnection(egress, {
      providerId: 'custom',
      baseURL: keyless.baseURL,
      model: KEY_A,
    });
    expect(pasted).toMatchObject({ ok: false, problem: 'refused' });
    expect(keyless.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    // A run's step for this keyless host goes too when its body holds none of the saved keys (it needs
    // no passphrase), and is held back when it quotes one.
    expect(await post(egress, keyless, chatBody('echo'))).toBe(200);
    const quoting = JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: `key ${KEY_A}` }] });
    const step = await post(egress, keyless, quoting).catch((e: unknown) => e);
    expect(step).toMatchObject({ name: 'ProviderError', kind: 'refused' });
  });

  it('takes saved keys out of an answer (the own host key too), through real fetch and across chunk boundaries', async () => {
    await vault.saveKey({ providerId: 'custom', origin: a.baseURL, key: KEY_A });
    await vault.saveKey({ providerId: 'custom', origin: keyed.baseURL, key: KEY_K });
    const egress = createEgress({ vault, ledger });
    // The test provider's fixed model answers with the text after "fixed:", without streaming.
    const response = await egress.fetchFor({ providerId: 'custom', baseURL: a.baseURL })(
      `${a.baseURL}/chat/completions`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: `fixed:mine ${KEY_A} theirs ${KEY_K}`,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      },
    );
    const json = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]!.message.content).toBe('mine [redacted key] theirs [redacted key]');

    // A key split over two network chunks is still found; text that cannot start a key is not held.
    const pieces = ['data: {"a":"sk-keyed-ho', 'st-KKKKKKKKKKKKKK"}\n\n', 'data: [DONE]\n\n'];
    const split = createEgress({
      vault,
      ledger,
      fetchImpl: async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
              controller.close();
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
    });
    const streamed = await split.fetchFor({ providerId: 'custom', baseURL: keyless.baseURL })(
      `${keyless.baseURL}/models`,
    );
    expect(await streamed.text()).toBe('data: {"a":"[redacted key]"}\n\ndata: [DONE]\n\n');
    const entries = await ledger.list();
    // The other host's key was already taken out of the request (the model id), so the answer held one.
    expect(entries.map((e) => [e.keysRemoved, e.answerKeysRemoved])).toEqual([
      [1, 1],
      [undefined, 1],
    ]);
    expect(entries[1]!.bytesIn).toBe(new TextEncoder().encode(pieces.join('')).byteLength);
  });
});
