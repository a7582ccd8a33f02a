/**
 * What the page learnt from asking a server: the pool form's connection test and model list (a provider,
 * through egress, so each request is in the ledger) and the local planner server's model list (through the
 * conductor thread). Results are the app's, so a screen that is left and opened again shows the last one.
 */
import { signal } from '@preact/signals';
import type { ConductorBridge } from '../conductor/bridge.ts';
import type { Egress } from '../egress/egress.ts';

/** The last connection test or model listing, in words. */
export interface ConnectionCheck {
  ok: boolean;
  text: string;
  /** What to do about it (a CORS setting, say). */
  hint?: string;
}

export type ServerModels =
  | { state: 'idle' }
  | { state: 'asking'; url: string }
  | { state: 'found'; url: string; ids: string[] }
  | { state: 'failed'; url: string; message: string };

function messageOf(error: unknown): string {
  return (error as { message?: string }).message ?? String(error);
}

export function createConnections(services: {
  egress(): Promise<Egress>;
  bridge(): Promise<ConductorBridge>;
}) {
  const checking = signal(false);
  const check = signal<ConnectionCheck | undefined>(undefined);
  /** Model ids the last test or listing found, and where: offered only for that provider and URL. */
  const discovered = signal<{ at: string; ids: string[] } | undefined>(undefined);
  const where = (target: { providerId: string; baseURL: string }) => `${target.providerId} ${target.baseURL}`;
  const serverModels = signal<ServerModels>({ state: 'idle' });

  async function checked(fn: () => Promise<ConnectionCheck>): Promise<void> {
    checking.value = true;
    check.value = undefined;
    try {
      check.value = await fn();
    } catch (error) {
      check.value = { ok: false, text: messageOf(error) };
    } finally {
      checking.value = false;
    }
  }

  /** Sends one small request to the worker as drafted and says what came back. */
  function test(target: { providerId: string; baseURL: string; model: string }): Promise<void> {
    return checked(async () => {
      const [{ testConnection }, egress] = await Promise.all([
        import('../egress/connection-test.ts'),
        services.egress(),
      ]);
      const result = await testConnection(egress, target);
      if (!result.ok)
        return { ok: false, text: result.message, ...(result.hint ? { hint: result.hint } : {}) };
      if (result.models) discovered.value = { at: where(target), ids: result.models };
      return { ok: true, text: result.message };
    });
  }

  /** Asks the provider which models it serves. */
  function discover(target: { providerId: string; baseURL: string }): Promise<void> {
    return checked(async () => {
      const [{ listModels }, egress] = await Promise.all([
        import('../egress/discovery.ts'),
        services.egress(),
      ]);
      const models = await listModels(egress, target);
      discovered.value = { at: where(target), ids: models };
      return { ok: true, text: `${models.length} model${models.length === 1 ? '' : 's'} found.` };
    });
  }

  /** Asks the local planner server at `url` for its models; a later ask replaces an earlier one. */
  async function askServer(url: string): Promise<void> {
    serverModels.value = { state: 'asking', url };
    const settle = (next: ServerModels) => {
      // Only the latest ask is shown: the URL may have changed while this one was out.
      const now = serverModels.value;
      if (now.state === 'asking' && now.url === url) serverModels.value = next;
    };
    try {
      const ids = await (await services.bridge()).serverModels(url);
      settle({ state: 'found', url, ids });
    } catch (error) {
      settle({ state: 'failed', url, message: messageOf(error) });
    }
  }

  /** The model ids found at this provider and URL, if the last test or listing was there. */
  function modelsAt(target: { providerId: string; baseURL: string }): string[] {
    const found = discovered.value;
    return found && found.at === where(target) ? found.ids : [];
  }

  return {
    checking,
    check,
    modelsAt,
    serverModels,
    test,
    discover,
    askServer,
    forgetServer: () => {
      serverModels.value = { state: 'idle' };
    },
    clearCheck: () => {
      check.value = undefined;
    },
  };
}

export type Connections = ReturnType<typeof createConnections>;
