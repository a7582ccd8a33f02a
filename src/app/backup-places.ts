/**
 * A bucket or WebDAV server as the Backups form gives it: its credentials saved in the vault, bound to
 * its origin (egress sends them there and nowhere else), and the place as Settings keeps it.
 */
import type { TargetConfig } from '../backup/sync-state.ts';
import { BACKUP_S3, BACKUP_WEBDAV } from '../egress/backup-endpoints.ts';
import type { Vault } from '../vault/vault.ts';

export type S3Form = {
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  secret: string;
};
export type WebDavForm = { url: string; user: string; password: string };

/** Credentials left empty keep the ones saved before. */
export async function s3Place(form: S3Form, vault: Pick<Vault, 'saveKey'>): Promise<TargetConfig> {
  const endpoint = form.endpoint.trim().replace(/\/+$/, '');
  const origin = new URL(endpoint).origin;
  if (form.accessKeyId.trim() && form.secret.trim()) {
    await vault.saveKey({
      providerId: BACKUP_S3,
      origin,
      key: `${form.accessKeyId.trim()}:${form.secret.trim()}`,
      label: `Backups (${form.bucket.trim()})`,
    });
  }
  return {
    kind: 's3',
    endpoint,
    bucket: form.bucket.trim(),
    region: form.region.trim() || 'auto',
    prefix: form.prefix.trim(),
  };
}

export async function webDavPlace(form: WebDavForm, vault: Pick<Vault, 'saveKey'>): Promise<TargetConfig> {
  const url = new URL(form.url.trim());
  if (form.user.trim() && form.password) {
    await vault.saveKey({
      providerId: BACKUP_WEBDAV,
      origin: url.origin,
      key: `${form.user.trim()}:${form.password}`,
      label: 'Backups (WebDAV)',
    });
  }
  return { kind: 'webdav', url: url.href };
}
