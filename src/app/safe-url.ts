/** Which link targets an answer may keep, on the page and in an export: web pages and mail, nothing that runs or embeds. */

/** http(s) and mailto URLs; a sanitiser's URL check takes the same pattern. */
export const SAFE_URL = /^(?:https?:|mailto:)/i;

/** `href` trimmed when it is an http(s) or mailto URL; undefined for anything else (`javascript:`, `data:`, relative). */
export function safeHref(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  return SAFE_URL.test(trimmed) ? trimmed : undefined;
}
