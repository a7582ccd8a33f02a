/** The target a saved configuration names, ready to use (a folder asks again for permission if it lapsed). */
import type { Egress } from '../../egress/egress.ts';
import { BackupError } from '../format.ts';
import type { TargetConfig } from '../sync-state.ts';
import { folderPermitted, folderTarget } from './folder.ts';
import { s3Target } from './s3.ts';
import { singleFileTarget } from './single-file.ts';
import type { BackupTarget } from './target.ts';
import { webDavTarget } from './webdav.ts';

export async function openTarget(
  config: TargetConfig,
  egress: () => Promise<Pick<Egress, 'fetchFor'>>,
  file?: { bytes: Uint8Array; name: string },
): Promise<BackupTarget> {
  if (config.kind === 's3') return s3Target(config, await egress());
  if (config.kind === 'webdav') return webDavTarget(config, await egress());
  if (config.kind === 'folder') {
    if (!(await folderPermitted(config.handle))) {
      throw new BackupError(
        'credentials',
        `Baton may not write to the folder ${config.handle.name}: allow it when the browser asks.`,
      );
    }
    return folderTarget(config.handle);
  }
  return singleFileTarget(file?.bytes, file?.name);
}

/** Whether the target's credentials are in the vault (a bucket or a server), so it must be unlocked. */
export function usesVault(config: TargetConfig): boolean {
  return config.kind === 's3' || config.kind === 'webdav';
}
