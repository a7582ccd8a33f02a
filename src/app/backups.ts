/**
 * Settings → Backups as the app holds it: where backups go, when, the last one's outcome, and the
 * actions (save a target, back up now, restore). Backups also start by themselves after a run ends and
 * on the user's schedule, when the keys kept here open the place (no passphrase is asked for then); a
 * backup another tab is making, or a locked vault, skips that time. The work is src/backup/'s, loaded
 * on first use.
 */
import { signal } from '@preact/signals';
import type { BackupConfig, BackupStatus, TargetConfig } from '../backup/sync-state.ts';
import type { BackupTarget } from '../backup/targets/target.ts';
import type { S3Form, WebDavForm } from './backup-places.ts';
import type { PageServices } from './services.ts';
import { once } from './services.ts';

export interface BackupProblemView {
  message: string;
  /** The configuration that lets this page reach the bucket or server (CORS), shown as code. */
  hint?: string;
}

export interface BackupProgressView {
  action: 'backup' | 'restore';
  done: number;
  total: number;
  bytes?: number;
}

const backupModules = once(() =>
  Promise.all([
    import('../backup/backup.ts'),
    import('../backup/restore.ts'),
    import('../backup/profile.ts'),
    import('../backup/targets/open-target.ts'),
    import('../backup/targets/folder.ts'),
  ]),
);

/** What the rest of the app reads again after a restore wrote records of these kinds. */
export type Restored = (kinds: readonly string[]) => Promise<void>;

export function createBackups(services: Pick<PageServices, 'vault' | 'egress'>, restored?: Restored) {
  const state = once(() => import('../backup/sync-state.ts').then((m) => m.openSyncState()));
  const config = signal<BackupConfig | undefined>(undefined);
  const status = signal<BackupStatus>({});
  const progress = signal<BackupProgressView | undefined>(undefined);
  const problem = signal<BackupProblemView | undefined>(undefined);
  /** The last action's outcome in words (a restore's notes follow in `status.notes`). */
  const said = signal<string | undefined>(undefined);
  /**
   * A restore wrote settings: they apply on a reload. The app reads each setting once, into the state
   * built from it (the conductor's model choice into the model loaded, the theme into the page), so
   * changing them under a running page would apply some and not others; the records (runs, threads,
   * the pool, tool servers, marks) are read again at once.
   */
  const reloadToApply = signal(false);
  let timer: ReturnType<typeof setInterval> | undefined;

  async function load(): Promise<void> {
    const s = await state();
    config.value = await s.config();
    status.value = await s.status();
    schedule();
  }

  async function current(): Promise<BackupConfig> {
    return config.value ?? (await (await state()).config());
  }

  async function saveConfig(next: BackupConfig): Promise<void> {
    await (await state()).setConfig(next);
    config.value = next;
    schedule();
  }

  function schedule(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    const minutes = config.value?.everyMinutes ?? 0;
    if (minutes > 0 && config.value?.target)
      timer = setInterval(() => void backUpQuietly(), minutes * 60_000);
  }

  async function targetOf(
    target: TargetConfig,
    file?: { bytes: Uint8Array; name: string },
  ): Promise<BackupTarget> {
    const [, , , opening] = await backupModules();
    if (opening.usesVault(target) && (await services.vault()).state() === 'locked') {
      throw new Error(
        "Unlock the vault in Settings → API keys first: the backup's credentials are kept in it.",
      );
    }
    return opening.openTarget(target, services.egress, file);
  }

  async function profile() {
    const [, , profiles] = await backupModules();
    const vault = await services.vault();
    return profiles.openProfile({
      storage: globalThis.localStorage,
      vault,
      includeKeys: config.value?.includeKeys ?? false,
    });
  }

  function shown(error: unknown): BackupProblemView {
    const hint = (error as { hint?: string }).hint;
    return { message: error instanceof Error ? error.message : String(error), ...(hint ? { hint } : {}) };
  }

  async function saveS3(form: S3Form): Promise<void> {
    const { s3Place } = await import('./backup-places.ts');
    await saveConfig({ ...(await current()), target: await s3Place(form, await services.vault()) });
  }

  async function saveWebDav(form: WebDavForm): Promise<void> {
    const { webDavPlace } = await import('./backup-places.ts');
    await saveConfig({ ...(await current()), target: await webDavPlace(form, await services.vault()) });
  }

  async function chooseFolder(): Promise<void> {
    const [, , , , folder] = await backupModules();
    const handle = await folder.pickFolder();
    await saveConfig({
      ...(await current()),
      target: { kind: 'folder', handle },
    });
  }

  async function useFile(): Promise<void> {
    await saveConfig({ ...(await current()), target: { kind: 'file' } });
  }

  /** Backs up now; resolves the file's bytes for a one-file backup (the view offers them as a download). */
  async function backUpNow(passphrase?: string): Promise<Uint8Array | undefined> {
    const target = config.value?.target;
    if (!target || progress.value) return undefined;
    problem.value = undefined;
    said.value = undefined;
    progress.value = { action: 'backup', done: 0, total: 0 };
    const s = await state();
    let opened: Awaited<ReturnType<typeof profile>> | undefined;
    try {
      const [backup] = await backupModules();
      const place = await targetOf(target);
      opened = await profile();
      const result = await backup.backUp({
        target: place,
        state: s,
        profile: opened,
        ...(passphrase ? { passphrase } : {}),
        onProgress: (p) => {
          progress.value = { action: 'backup', ...p };
        },
      });
      status.value = result.status;
      said.value =
        result.changed === 0
          ? 'Nothing changed since the last backup.'
          : `Backed up ${result.changed} changed records.`;
      return 'toBytes' in place ? (place as { toBytes(): Uint8Array }).toBytes() : undefined;
    } catch (error) {
      problem.value = shown(error);
      await s.setStatus({ ...(await s.status()), lastError: problem.value.message });
      return undefined;
    } finally {
      opened?.close();
      progress.value = undefined;
    }
  }

  /** A backup nobody asked for this time (after a run, on the schedule): silent unless it fails. */
  async function backUpQuietly(): Promise<void> {
    const target = config.value?.target;
    if (!target || target.kind === 'file' || progress.value) return;
    const s = await state();
    if (!(await s.keys())) return;
    if (target.kind !== 'folder' && (await services.vault()).state() === 'locked') return;
    let opened: Awaited<ReturnType<typeof profile>> | undefined;
    try {
      const [backup] = await backupModules();
      const place = await targetOf(target);
      opened = await profile();
      progress.value = { action: 'backup', done: 0, total: 0 };
      status.value = (await backup.backUp({ target: place, state: s, profile: opened, wait: false })).status;
    } catch (error) {
      if ((error as { problem?: string }).problem === 'busy') return;
      problem.value = shown(error);
    } finally {
      opened?.close();
      progress.value = undefined;
    }
  }

  /** After a run ended: a backup, when the settings (read at start, `load`) ask for one. */
  function runEnded(): void {
    if (config.value?.afterRun && config.value.target) void backUpQuietly();
  }

  /** Restores from the place (or from `file`, a one-file backup); says what came back and what did not. */
  async function restoreNow(
    passphrase?: string,
    file?: { bytes: Uint8Array; name: string },
  ): Promise<boolean> {
    const target: TargetConfig | undefined = file ? { kind: 'file' } : config.value?.target;
    if (!target || progress.value) return false;
    problem.value = undefined;
    said.value = undefined;
    progress.value = { action: 'restore', done: 0, total: 0 };
    const s = await state();
    let opened: Awaited<ReturnType<typeof profile>> | undefined;
    try {
      const [, restoring] = await backupModules();
      const place = await targetOf(target, file);
      opened = await profile();
      const result = await restoring.restore({
        target: place,
        state: s,
        profile: opened,
        ...(passphrase ? { passphrase } : {}),
        onProgress: (p) => {
          progress.value = { action: 'restore', ...p };
        },
      });
      status.value = await s.status();
      await restored?.(result.kinds);
      said.value = `Restored ${result.restored} records${result.deleted ? `, deleted ${result.deleted} deleted on another device` : ''}${result.problems.length ? `; ${result.problems.length} could not be restored` : ''}.`;
      if (result.kinds.includes('settings')) reloadToApply.value = true;
      return true;
    } catch (error) {
      problem.value = shown(error);
      return false;
    } finally {
      opened?.close();
      progress.value = undefined;
    }
  }

  async function setWhen(
    next: Pick<BackupConfig, 'afterRun' | 'everyMinutes' | 'includeKeys'>,
  ): Promise<void> {
    await saveConfig({ ...(await current()), ...next });
  }

  /** A change of place, its failure said in the panel (a locked vault, a URL that does not parse). */
  function guarded<A extends unknown[]>(action: (...args: A) => Promise<void>) {
    return async (...args: A): Promise<boolean> => {
      problem.value = undefined;
      try {
        await action(...args);
        return true;
      } catch (error) {
        if (error instanceof TypeError && /URL/i.test(error.message)) {
          problem.value = {
            message: 'That address is not a valid URL: it starts with https:// (or http:// on this machine).',
          };
        } else if ((error as { name?: string }).name !== 'AbortError') problem.value = shown(error);
        return false;
      }
    };
  }

  return {
    config,
    status,
    progress,
    problem,
    said,
    reloadToApply,
    load,
    saveS3: guarded(saveS3),
    saveWebDav: guarded(saveWebDav),
    chooseFolder: guarded(chooseFolder),
    useFile: guarded(useFile),
    backUpNow,
    restoreNow,
    setWhen,
    runEnded,
  };
}

export type Backups = ReturnType<typeof createBackups>;
