/**
 * Why a request got no readable answer at all, when `fetch` only says "Failed to fetch": nothing is
 * listening there, or a server answered and the browser hid the answer (no CORS). A `no-cors` probe of
 * the same base URL tells the two apart (it gets an opaque answer from any server that answers). One
 * diagnosis, used for a step's error and its ledger row (egress.ts) and by "Test connection"
 * (connection-test.ts), so the two never disagree about the same host.
 */
import { isLoopback, type ProviderPreset } from '../providers/catalog.ts';
import { ProviderError } from '../providers/errors.ts';

export type UnreachableProblem = 'cors' | 'local-cors' | 'unreachable' | 'unreachable-or-cors';

/**
 * A request that got no readable answer, with why. Kind `connection` (retried, then failed over, as
 * any network failure): a server that is down may be up in a moment, and one without CORS is for
 * another worker to stand in for.
 */
export class UnreachableError extends ProviderError {
  override name = 'UnreachableError';
  constructor(
    readonly problem: UnreachableProblem,
    message: string,
  ) {
    super('connection', message);
  }

  /** Whether the preset's CORS hint helps: not when nothing is listening at all. */
  get corsMayHelp(): boolean {
    return this.problem !== 'unreachable';
  }
}

/** The COEP the build serves the app with (vite.config.ts defines it); undefined outside a Vite build. */
function servedCoep(): string | undefined {
  const value: unknown = import.meta.env?.BATON_COEP;
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * Whether a no-cors probe that fails proves nothing is listening. False on a page whose COEP is
 * `require-corp` (there an answer without a Cross-Origin-Resource-Policy header fails too); true when the
 * page is not cross-origin isolated or its COEP is `credentialless`.
 */
export function probeConclusiveHere(): boolean {
  if (!(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) return true;
  return servedCoep() === 'credentialless';
}

export interface UnreachableTarget {
  preset: ProviderPreset | undefined;
  /** The provider's name when no preset is known. */
  providerId: string;
  baseURL: string;
  /**
   * A no-cors request to the base URL: resolves whether any server answered. Rejects with an AbortError
   * when cancelled (passed on).
   */
  probe: () => Promise<boolean>;
  /** Default: `probeConclusiveHere()`. */
  probeConclusive?: boolean;
}

/** Why `target` gave no readable answer, in words for the step card, the ledger and the connection test. */
export async function diagnoseUnreachable(target: UnreachableTarget): Promise<UnreachableError> {
  const { preset } = target;
  const name = preset?.name ?? target.providerId;
  const host = new URL(target.baseURL).host;
  const local = preset?.kind === 'local' || isLoopback(target.baseURL);
  let reachable: boolean;
  try {
    reachable = await target.probe();
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw error;
    reachable = false;
  }
  if (reachable) {
    return local
      ? new UnreachableError(
          'local-cors',
          `The server at ${host} is running, but it does not allow requests from this page (CORS), so the browser hid its answer.`,
        )
      : new UnreachableError(
          'cors',
          `${name} answered, but the browser blocked the answer (CORS): this endpoint does not accept requests from web pages, or rejected a header.`,
        );
  }
  if (!(target.probeConclusive ?? probeConclusiveHere())) {
    return new UnreachableError(
      'unreachable-or-cors',
      local
        ? `No readable answer from ${host}: either nothing is running there, or the server does not allow requests from this page (CORS). This browser cannot tell the two apart on this page.`
        : `Could not get a readable answer from ${host}: the host is unreachable, or it refuses requests from web pages (CORS). Check the base URL and your connection.`,
    );
  }
  return new UnreachableError(
    'unreachable',
    local
      ? `Nothing is listening at ${host} (connection refused): is the server running, on this port?`
      : `Could not reach ${host}: check the base URL and your connection (or this app's Content-Security-Policy, for a custom host).`,
  );
}
