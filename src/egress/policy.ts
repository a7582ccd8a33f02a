/**
 * Egress policy: where a provider's requests may go, what they carry and what they never carry. Pure
 * decisions (no network, no ledger): egress.ts asks these before a request leaves and after its answer
 * arrives, and refuses with the ProviderError they give.
 */
import { redirectError } from '../providers/answer-response.ts';
import { originOf, type ProviderPreset } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';
import { explainFetchFailure } from '../providers/network-cause.ts';
import { removeSecrets } from '../vault/redact.ts';

/** Headers that carry credentials: whatever the client put there is replaced by egress. */
const AUTH_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie']);
/** The only client headers kept when a preset strips the SDK's headers (a strict preflight allows these). */
const KEPT_HEADERS = new Set(['content-type', 'accept']);

/**
 * The headers a request to `preset` carries: the client's (all but credentials, or only Content-Type and
 * Accept when the preset strips SDK headers), then the preset's own, then the key in the preset's style.
 */
export function outgoingHeaders(
  preset: ProviderPreset,
  clientHeaders: HeadersInit | undefined,
  key?: string,
): Headers {
  const out = new Headers();
  for (const [name, value] of new Headers(clientHeaders)) {
    if (AUTH_HEADERS.has(name)) continue;
    if (preset.stripSdkHeaders && !KEPT_HEADERS.has(name)) continue;
    out.set(name, value);
  }
  for (const [name, value] of Object.entries(preset.headers)) out.set(name, value);
  if (key !== undefined && key !== '') {
    if (preset.auth === 'bearer') out.set('authorization', `Bearer ${key}`);
    else if (preset.auth === 'x-api-key') out.set('x-api-key', key);
    else if (preset.auth === 'basic') out.set('authorization', `Basic ${basicCredentials(key)}`);
  }
  return out;
}

/** `user:password` as RFC 7617 sends it: base64 of its UTF-8 bytes. */
function basicCredentials(key: string): string {
  return btoa(toBinary(new TextEncoder().encode(key)));
}

/**
 * The one origin a request for `preset` at `baseURL` may go to, with the URL checked against it, or why
 * `url` may not be requested.
 */
export function checkDestination(
  preset: ProviderPreset,
  baseURL: string,
  url: URL | undefined,
): { origin: string; url: URL } | { refused: ProviderError } {
  let allowedOrigin: string;
  try {
    allowedOrigin = new URL(baseURL).origin;
  } catch {
    return { refused: new ProviderError('refused', `${preset.name}: the base URL is not a valid URL`) };
  }
  const pinnedOrigin = preset.baseURLEditable ? undefined : originOf(preset.baseURL);
  if (pinnedOrigin !== undefined && allowedOrigin !== pinnedOrigin) {
    return {
      refused: new ProviderError(
        'refused',
        `${preset.name} requests go only to ${pinnedOrigin}, not ${allowedOrigin}`,
      ),
    };
  }
  if (!url || url.origin !== allowedOrigin) {
    return {
      refused: new ProviderError(
        'refused',
        `Refused a request for ${preset.name} to ${url?.origin ?? 'an invalid URL'}: its requests go only to ${allowedOrigin}`,
      ),
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { refused: new ProviderError('refused', `Refused a ${url.protocol} request for ${preset.name}`) };
  }
  if (url.username || url.password) {
    return { refused: new ProviderError('refused', 'Refused a URL with credentials in it') };
  }
  return { origin: allowedOrigin, url };
}

export function unknownProvider(providerId: string): ProviderError {
  return new ProviderError('refused', `Unknown provider "${providerId}"`);
}

/** The vault would not give the key (locked, or the provider's keys are bound to another origin). */
export function vaultRefused(preset: ProviderPreset, error: unknown): ProviderError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ProviderError('refused', `${preset.name}: ${reason}`);
}

export function missingKey(preset: ProviderPreset, host: string): ProviderError {
  return new ProviderError(
    'auth',
    `No key is saved for ${preset.name} at ${host}: add one in Settings → API keys`,
  );
}

/** A body that could not be checked for other hosts' keys does not leave. */
export function uncheckedBody(preset: ProviderPreset, host: string, error: unknown): ProviderError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ProviderError(
    'refused',
    `${preset.name}: the request to ${host} was not sent, because it could not be checked for saved keys of other hosts (${reason})`,
  );
}

/** A 401 from a host that wants a key when none is saved for it: "no key", not "the key was rejected". */
export function keyAskedFor(preset: ProviderPreset, host: string): ProviderError {
  return new ProviderError(
    'auth',
    `${preset.name} at ${host} asks for a key (401), and no key is saved for ${host}: add one in Settings → API keys`,
    401,
  );
}

/**
 * What every request of ours is sent with: never cookies, never the page's URL, never a redirect followed
 * with the key to another place (it is stopped and named by `refusedRedirect`). A probe carries no key
 * and no headers, and `no-cors` allows only `follow`.
 */
export function transportInit(mode: 'cors' | 'probe'): RequestInit {
  return {
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
    redirect: mode === 'probe' ? 'follow' : 'manual',
    mode: mode === 'probe' ? 'no-cors' : 'cors',
  };
}

/** The error for a redirect answer (never followed), or undefined for any other answer. */
export function refusedRedirect(response: Response): ProviderError | undefined {
  return redirectError(response);
}

/** "Failed to fetch" says nothing: offline and a CSP block can be told, and are named. */
export function namedFailure(url: string, error: unknown): Promise<ProviderError | undefined> {
  return explainFetchFailure(url, error);
}

/** Bytes as a string of char codes 0–255 (keys are ASCII, so matching them here is byte-exact). */
export function toBinary(bytes: Uint8Array): string {
  let binary = '';
  // `apply` with the typed array itself: spreading it (`...bytes`) walks its iterator, 15 to 45 times
  // slower, which made a 5 MB answer spend seconds here.
  for (let i = 0; i < bytes.length; i += 0x2000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x2000) as unknown as number[]);
  }
  return binary;
}

export function fromBinary(binary: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * `body` with every one of `secrets` (saved keys of other hosts) replaced by the redaction marker. Text
 * bodies are edited as text; binary ones byte for byte (keys are ASCII, so a byte-level match is exact
 * and other bytes are kept).
 */
export async function scrubBody(
  sized: { body: BodyInit; bytes: number },
  secrets: string[],
): Promise<{ body: BodyInit; bytes: number; removed: number }> {
  const encoder = new TextEncoder();
  const { body } = sized;
  if (typeof body === 'string') {
    const { text, removed } = removeSecrets(body, secrets);
    return { body: text, bytes: encoder.encode(text).byteLength, removed };
  }
  let bytes: Uint8Array;
  if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  else if (typeof Blob !== 'undefined' && body instanceof Blob)
    bytes = new Uint8Array(await body.arrayBuffer());
  else return { ...sized, removed: 0 }; // sizedBody leaves no other kind
  const { text, removed } = removeSecrets(toBinary(bytes), secrets);
  if (removed === 0) return { body, bytes: bytes.byteLength, removed };
  const out = fromBinary(text);
  return { body: out, bytes: out.byteLength, removed };
}
