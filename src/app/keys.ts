/**
 * The saved API keys and the vault's lock as the page shows them: signals that follow the vault (every
 * change it makes, here or in another tab, reaches `onChange`), and the actions Settings offers. The
 * vault is opened on the first `watch()`, not with the app: most screens never show a key.
 */
import { signal } from '@preact/signals';
import { presetById } from '../providers/catalog.ts';
import { isMcpProvider, MCP_PROVIDER_ID } from '../providers/mcp-preset.ts';
import type { KeyInfo, SaveKeyInput, Vault } from '../vault/vault.ts';

/** What an action did, in words for the page. */
export interface KeyOutcome {
  kind: 'ok' | 'error';
  text: string;
}

/** Why a new passphrase is refused when its repeat differs: one typo would lock the keys away for good. */
export const PASSPHRASES_DIFFER =
  'The new passphrase and its repeat differ: type the same passphrase in both fields. Nothing was changed.';

const differ = (): Promise<KeyOutcome> => Promise.resolve({ kind: 'error', text: PASSPHRASES_DIFFER });

/**
 * A saved key's name as the user knows it: its provider's name, or for a tool server's token (whose
 * provider id is `mcp:` and the server's path) the server's own name.
 */
export function keyName(key: Pick<KeyInfo, 'providerId' | 'label'>): string {
  if (isMcpProvider(key.providerId))
    return key.label
      ? `Tool server "${key.label}"`
      : `Tool server at ${key.providerId.slice(MCP_PROVIDER_ID.length + 1) || '/'}`;
  return presetById(key.providerId)?.name ?? key.providerId;
}

function errorText(error: unknown): string {
  return (error as { message?: string }).message ?? 'Something went wrong.';
}

export function createKeys(services: { vault(): Promise<Vault> }) {
  /** Undefined until the vault is open. */
  const vault = signal<Vault | undefined>(undefined);
  const list = signal<KeyInfo[]>([]);
  const locked = signal(false);
  const hasPassphrase = signal(false);
  /** Why the list could not be read, when it could not. */
  const readError = signal<string | undefined>(undefined);
  let watching: Promise<void> | undefined;

  async function refresh(v: Vault): Promise<void> {
    locked.value = v.state() === 'locked';
    hasPassphrase.value = v.hasPassphrase();
    try {
      list.value = v.state() === 'locked' ? [] : await v.listKeys();
      readError.value = undefined;
    } catch (error) {
      readError.value = errorText(error);
    }
  }

  /** Opens the vault and follows it for the rest of the page's life. */
  function watch(): Promise<void> {
    watching ??= services.vault().then(async (v) => {
      v.onChange(() => void refresh(v));
      await refresh(v);
      vault.value = v;
    });
    return watching;
  }

  /** Runs `fn` on the open vault; the signals follow through `onChange`, so no refresh here. */
  async function act(fn: (v: Vault) => Promise<unknown>, ok: string): Promise<KeyOutcome> {
    try {
      await watch();
      await fn(vault.value as Vault);
      return { kind: 'ok', text: ok };
    } catch (error) {
      return { kind: 'error', text: errorText(error) };
    }
  }

  return {
    vault,
    list,
    locked,
    hasPassphrase,
    readError,
    watch,
    save: (input: SaveKeyInput) => act((v) => v.saveKey(input), 'Key saved.'),
    remove: (id: string) => act((v) => v.deleteKey(id), 'Key deleted.'),
    unlock: (passphrase: string) => act((v) => v.unlock(passphrase), 'Unlocked.'),
    lock: () => act(async (v) => v.lock(), 'Locked.'),
    /** `repeat`: the passphrase typed a second time; the vault is not touched unless the two match. */
    setPassphrase: (passphrase: string, repeat = passphrase) =>
      passphrase === repeat ? act((v) => v.setPassphrase(passphrase), 'Passphrase set.') : differ(),
    changePassphrase: (current: string, next: string, repeat = next) =>
      next === repeat ? act((v) => v.changePassphrase(current, next), 'Passphrase changed.') : differ(),
    removePassphrase: (current: string) => act((v) => v.removePassphrase(current), 'Passphrase removed.'),
  };
}

export type Keys = ReturnType<typeof createKeys>;
