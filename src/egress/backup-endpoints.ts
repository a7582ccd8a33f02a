/**
 * Backup targets as egress sees them: two providers of no catalog (they are not workers, and the user's
 * own bucket or server is on no list; their presets are in egress-presets.ts), so a backup request is
 * checked, keyed and recorded as a provider's is (purpose `backup`). The S3 signature is made here, where
 * the secret is attached, so the secret never reaches src/backup/.
 */
import { AwsV4Signer } from 'aws4fetch';
import { ProviderError } from '../providers/errors.ts';

export const BACKUP_S3 = 'backup-s3';
export const BACKUP_WEBDAV = 'backup-webdav';

/**
 * A request to an S3-compatible endpoint signed (AWS Signature Version 4, by aws4fetch) with the key
 * `accessKeyId:secretAccessKey`, for `region` (R2 takes `auto`, MinIO and s3rver any name).
 */
export async function signedForS3(
  request: { href: string; method: string; headers: Headers; body: BodyInit | undefined },
  key: string,
  region: string,
): Promise<Headers> {
  const colon = key.indexOf(':');
  if (colon <= 0 || colon === key.length - 1) {
    throw new ProviderError(
      'auth',
      'The saved bucket credentials are not "access key id:secret access key": save them again in Settings → Backups',
    );
  }
  const signer = new AwsV4Signer({
    url: request.href,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    accessKeyId: key.slice(0, colon),
    secretAccessKey: key.slice(colon + 1),
    service: 's3',
    region,
  });
  return (await signer.sign()).headers;
}
