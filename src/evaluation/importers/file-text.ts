/**
 * The text of a picked task-set file. Published benchmark files often come compressed (HumanEval ships as
 * `HumanEval.jsonl.gz`): gzip is recognised by its first two bytes, whatever the file is called, and
 * decompressed with the browser's own DecompressionStream; every format the importers read can come so.
 * Archives and binary formats the importers do not read are named instead of being read as garbled lines.
 */

/** A file that cannot be read as a task set at all, with what to do about it. */
export class TaskSetFileError extends Error {
  override name = 'TaskSetFileError';
}

export interface TaskSetFileText {
  text: string;
  /** The file's name without a `.gz` ending: what the importers match a benchmark's name against. */
  name: string;
  /** True when the file was gzip-compressed. */
  gzip: boolean;
}

const startsWith = (bytes: Uint8Array, ...magic: number[]) => magic.every((b, i) => bytes[i] === b);

/** gzip's magic number (RFC 1952, section 2.3.1: ID1 = 31, ID2 = 139). */
export const isGzip = (bytes: Uint8Array) => startsWith(bytes, 0x1f, 0x8b);

/** What a binary file is, when it is one the importers cannot read; undefined for anything else. */
function unreadableKind(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, 0x50, 0x4b, 0x03, 0x04)) return 'a ZIP archive: unzip it and pick the file inside';
  if (startsWith(bytes, 0x50, 0x41, 0x52, 0x31))
    return 'a Parquet file: pick the dataset as JSONL or CSV (its page usually offers one)';
  if (startsWith(bytes, 0x42, 0x5a, 0x68)) return 'bzip2-compressed: decompress it first';
  if (startsWith(bytes, 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return 'xz-compressed: decompress it first';
  return undefined;
}

async function gunzip(file: Blob): Promise<Uint8Array> {
  const stream = file.stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function decode(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TaskSetFileError(
      `${name} is not text (UTF-8): pick a JSONL or CSV file, as it is or gzip-compressed (.gz).`,
    );
  }
}

/** Reads a picked file as text, decompressing gzip; throws TaskSetFileError when it cannot be read. */
export async function taskSetFileText(file: Blob, fileName: string): Promise<TaskSetFileText> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const name = fileName.replace(/\.gz$/i, '');
  if (!isGzip(bytes)) {
    const kind = unreadableKind(bytes);
    if (kind) throw new TaskSetFileError(`${fileName} is ${kind}.`);
    return { text: decode(bytes, fileName), name, gzip: false };
  }
  let inflated: Uint8Array;
  try {
    inflated = await gunzip(file);
  } catch (error) {
    throw new TaskSetFileError(
      `${fileName} is gzip-compressed but could not be decompressed (${(error as Error).message}): it may be cut short; download it again.`,
    );
  }
  const kind = unreadableKind(inflated);
  if (kind) throw new TaskSetFileError(`${fileName} holds ${kind}.`);
  return { text: decode(inflated, fileName), name, gzip: true };
}
