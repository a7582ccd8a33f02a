/**
 * What a bucket's or WebDAV server's answer means for a backup: a refusal of the credentials, a full
 * quota, a page the server does not let in (CORS, with the configuration that would), said in words.
 */
import type { Egress, EgressTarget } from '../../egress/egress.ts';
import { UnreachableError } from '../../egress/unreachable.ts';
import { ProviderError } from '../../providers/errors.ts';
import { BackupError } from '../format.ts';

/** The page's own origin, for the CORS configuration shown (the test's origin in unit tests). */
export function pageOrigin(): string {
  return globalThis.location?.origin ?? 'https://your-baton-origin';
}

export type CorsHint = (origin: string) => string;

/** Sends one request through egress (purpose `backup`), turning a failure without an answer into words. */
export async function send(
  egress: Pick<Egress, 'fetchFor'>,
  target: EgressTarget,
  label: string,
  url: string,
  init: RequestInit,
  corsHint: CorsHint,
): Promise<Response> {
  try {
    return await egress.fetchFor({ ...target, purpose: 'backup' })(url, init);
  } catch (error) {
    if (error instanceof UnreachableError && error.corsMayHelp) {
      throw new BackupError(
        'cors',
        `${label} answered, but does not let this page read its answers (CORS). Allow ${pageOrigin()} in its CORS configuration:`,
        corsHint(pageOrigin()),
      );
    }
    if (error instanceof UnreachableError) {
      throw new BackupError('unreachable', `${label} could not be reached: ${error.message}`);
    }
    if (error instanceof ProviderError) throw new BackupError('failed', `${label}: ${error.message}`);
    throw error;
  }
}

/** A failed answer as a BackupError; `code` is the server's own error code when it sent one. */
export function failedAnswer(label: string, what: string, status: number, code?: string): BackupError {
  const said = code ? ` (${status} ${code})` : ` (${status})`;
  if (
    status === 507 ||
    status === 413 ||
    code === 'QuotaExceeded' ||
    code === 'EntityTooLarge' ||
    code === 'InsufficientStorage'
  ) {
    return new BackupError(
      'full',
      `${label} is full or over its quota${said}: ${what} was not written. Free space there or raise the quota.`,
    );
  }
  if (status === 401 || status === 403) {
    return new BackupError(
      'credentials',
      `${label} refused the credentials${said}: they are wrong or expired, or lack the right to ${what}. Save them again in Settings → Backups.`,
    );
  }
  return new BackupError('failed', `${label} could not ${what}${said}.`);
}
