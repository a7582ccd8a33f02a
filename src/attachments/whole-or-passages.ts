/**
 * When a file goes whole and when as passages, where the plan did not say (`"all"`, the router's one
 * step, a one-step plan made on the page): whole up to a size the user sets (Settings → Planning; about
 * 8,000 tokens by default), as passages past it. A plan that names a file by its number, or a user who
 * ticks "send whole file", sends it whole whatever its size.
 */
import type { Attachment } from './types.ts';

export const DEFAULT_WHOLE_FILE_TOKENS = 8000;

/** A file's text, as a step sent it whole would carry it (none for an image). */
export function textOf(attachment: Attachment): string {
  if (attachment.kind === 'image') return '';
  return attachment.kind === 'pdf' ? attachment.pages.join('\n') : attachment.text;
}

/**
 * About how many tokens a file's text is: characters ÷ 4, the estimator's own rule before its tokenizer
 * loads. A threshold needs no more precision, and this needs no tokenizer (a 300-page PDF would take it a
 * noticeable while).
 */
export function approxTokens(attachment: Attachment): number {
  return Math.ceil(textOf(attachment).length / 4);
}

/** Whether a file is past the size it is sent whole at when nobody chose. */
export function isLong(
  attachment: Attachment,
  wholeFileTokens: number | null = DEFAULT_WHOLE_FILE_TOKENS,
): boolean {
  return (
    wholeFileTokens !== null && attachment.kind !== 'image' && approxTokens(attachment) > wholeFileTokens
  );
}

/** The choices Settings offers (tokens); `null` is "always whole". */
export const WHOLE_FILE_CHOICES: readonly (number | null)[] = [2_000, 8_000, 32_000, 128_000, null];

/** The stored setting, or the default when it is missing or unreadable. `null`: never as passages. */
export function readWholeFileTokens(raw: string | null | undefined): number | null {
  if (raw === 'null') return null;
  const tokens = Number(raw);
  return raw && Number.isInteger(tokens) && tokens > 0 ? tokens : DEFAULT_WHOLE_FILE_TOKENS;
}
