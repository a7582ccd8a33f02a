/**
 * A record as bytes and back, kept whole: JSON for its fields, and its binary parts (a file's Blob, an
 * image's bytes) appended raw rather than as base64 (a third larger), each referenced from the JSON by
 * index. Layout: the JSON's length (4 bytes, big-endian), the JSON, then the binary parts in order.
 */

/** The key that marks a binary part in the JSON; no record of ours has a field of that name. */
const PART = '\u0000part';

interface PartRef {
  [PART]: number;
  kind: 'blob' | 'u8' | 'buffer';
  type?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `value` as bytes; Blobs are read, so this is async. */
export async function encodeRecord(value: unknown): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  const pending: Promise<void>[] = [];
  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (typeof Blob !== 'undefined' && node instanceof Blob) {
      const index = parts.length;
      parts.push(new Uint8Array(0));
      pending.push(
        node.arrayBuffer().then((buffer) => {
          parts[index] = new Uint8Array(buffer);
        }),
      );
      return { [PART]: index, kind: 'blob', type: node.type } satisfies PartRef;
    }
    if (node instanceof Uint8Array) {
      parts.push(node);
      return { [PART]: parts.length - 1, kind: 'u8' } satisfies PartRef;
    }
    if (node instanceof ArrayBuffer) {
      parts.push(new Uint8Array(node));
      return { [PART]: parts.length - 1, kind: 'buffer' } satisfies PartRef;
    }
    if (Array.isArray(node)) return node.map(walk);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) out[key] = walk(child);
    return out;
  };
  const json = encoder.encode(JSON.stringify(walk(value)));
  await Promise.all(pending);
  const sizes = parts.map((p) => p.byteLength);
  const head = encoder.encode(JSON.stringify(sizes));
  const total = 8 + json.byteLength + head.byteLength + sizes.reduce((a, b) => a + b, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, json.byteLength);
  out.set(json, 4);
  view.setUint32(4 + json.byteLength, head.byteLength);
  out.set(head, 8 + json.byteLength);
  let at = 8 + json.byteLength + head.byteLength;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** The record `encodeRecord` wrote; throws on bytes it did not write (the caller names the object). */
export function decodeRecord(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(0);
  const json = JSON.parse(decoder.decode(bytes.subarray(4, 4 + jsonLength))) as unknown;
  const headLength = view.getUint32(4 + jsonLength);
  const sizes = JSON.parse(
    decoder.decode(bytes.subarray(8 + jsonLength, 8 + jsonLength + headLength)),
  ) as number[];
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let at = 8 + jsonLength + headLength;
  for (const size of sizes) {
    parts.push(bytes.slice(at, at + size));
    at += size;
  }
  if (at !== bytes.byteLength) throw new Error('the record is cut short or has bytes after its end');
  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map(walk);
    const record = node as Record<string, unknown>;
    if (PART in record) {
      const ref = record as unknown as PartRef;
      const part = parts[ref[PART]];
      if (!part) throw new Error('the record names a binary part it does not hold');
      if (ref.kind === 'blob') return new Blob([part], { type: ref.type ?? '' });
      if (ref.kind === 'buffer') return part.buffer;
      return part;
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) out[key] = walk(child);
    return out;
  };
  return walk(json);
}

/**
 * Several records in one object: a backup of 1,000 runs is some dozens of requests, not thousands (a
 * bucket answers each in milliseconds to tens of them). Layout: the count, each record's length (4 bytes
 * each, big-endian), then the records.
 */
export function encodePack(records: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const head = 4 + 4 * records.length;
  const out = new Uint8Array(head + records.reduce((n, r) => n + r.byteLength, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, records.length);
  let at = head;
  records.forEach((record, i) => {
    view.setUint32(4 + 4 * i, record.byteLength);
    out.set(record, at);
    at += record.byteLength;
  });
  return out;
}

/** The records of a pack; throws on bytes `encodePack` did not write. */
export function decodePack(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0);
  const records: Uint8Array[] = [];
  let at = 4 + 4 * count;
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(4 + 4 * i);
    records.push(bytes.subarray(at, at + length));
    at += length;
  }
  if (at !== bytes.byteLength) throw new Error('the pack is cut short or has bytes after its end');
  return records;
}
