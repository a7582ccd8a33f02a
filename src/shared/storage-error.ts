/**
 * Why a write to the browser's storage (IndexedDB) failed, in words. A browser's QuotaExceededError often
 * has an empty message, so the cause is said from the error's name, never as "QuotaExceededError: ".
 */
const CAUSES: Readonly<Record<string, string>> = {
  QuotaExceededError: "this browser's storage for Baton is full",
  InvalidStateError: 'the database was closed (another tab may be upgrading it)',
  VersionError: 'another tab has a newer version of Baton open',
  UnknownError: "the browser's storage failed (its disk may be full or unreadable)",
  AbortError: 'the write was cancelled',
  DataCloneError: 'a value could not be stored',
};

export function storageErrorText(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error || error instanceof DOMException ? error.message.trim() : '';
  const cause = typeof name === 'string' ? CAUSES[name] : undefined;
  if (cause) return message && name !== 'QuotaExceededError' ? `${cause}: ${message}` : cause;
  if (message) return message;
  if (typeof name === 'string' && name && name !== 'Error') return `${name} (no reason given)`;
  return error instanceof Error || !String(error) ? 'no reason given' : String(error);
}
