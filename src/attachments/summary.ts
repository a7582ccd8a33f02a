/**
 * What the conductor is told about an attachment (shared/conductor-api.ts `AttachmentSummary`): name,
 * kind, size, and for text the start of it within a small token budget, never the whole file. The
 * on-device planner prefills every token of it, so the budget keeps a question with files quick to plan.
 */

import type { AttachmentSummary } from '../shared/conductor-api.ts';
import { estimateTokens } from '../shared/token-estimate.ts';
import { type Attachment, imageToSend } from './types.ts';
import { isLong } from './whole-or-passages.ts';

/** Tokens of text extract per file: enough to tell a CSV's columns or a contract's title. */
export const EXTRACT_TOKENS = 60;

/** The longest start of `text` within `budget` tokens (whole lines first, then cut). */
export function extractOf(text: string, budget = EXTRACT_TOKENS): string {
  const start = text
    .slice(0, budget * 8)
    .replace(/\s+/g, ' ')
    .trim();
  if (estimateTokens(start) <= budget) return start;
  let low = 0;
  let high = start.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(start.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  return start.slice(0, low);
}

export function attachmentSummary(
  attachment: Attachment,
  budget = EXTRACT_TOKENS,
  wholeFileTokens?: number | null,
): AttachmentSummary {
  const summary: AttachmentSummary = {
    name: attachment.name,
    kind: attachment.kind,
    size: attachment.size,
    ...(isLong(attachment, wholeFileTokens) ? { long: true as const } : {}),
  };
  if (attachment.kind === 'image') {
    const { width, height } = imageToSend(attachment);
    return { ...summary, width, height };
  }
  if (attachment.kind === 'pdf') {
    const extract = extractOf(attachment.pages.join('\n'), budget);
    return { ...summary, pages: attachment.pages.length, ...(extract ? { extract } : {}) };
  }
  const extract = extractOf(attachment.text, budget);
  return extract ? { ...summary, extract } : summary;
}
