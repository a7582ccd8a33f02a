/**
 * An S3-compatible bucket (AWS S3, Cloudflare R2, Backblaze B2, MinIO): path-style URLs
 * (`{endpoint}/{bucket}/{prefix}{name}`), signed by egress with the credentials the vault keeps for the
 * endpoint's origin (src/egress/backup-endpoints.ts), so they go nowhere else.
 * API: https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html, API_GetObject.html,
 * API_ListObjectsV2.html, API_DeleteObject.html.
 */

import { BACKUP_S3 } from '../../egress/backup-endpoints.ts';
import type { Egress } from '../../egress/egress.ts';
import { type CorsHint, failedAnswer, send } from './http.ts';
import type { BackupTarget } from './target.ts';

export interface S3Config {
  /** `https://<account>.r2.cloudflarestorage.com`, `https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  /** Default `auto` (R2); AWS wants the bucket's region. */
  region?: string;
  /** A folder in the bucket, `baton/` (optional). */
  prefix?: string;
}

/** The bucket CORS rule (the JSON S3, R2 and MinIO take) that lets `origin` back up there. */
export const s3CorsHint: CorsHint = (origin) =>
  JSON.stringify(
    [
      {
        AllowedOrigins: [origin],
        AllowedMethods: ['GET', 'PUT', 'DELETE', 'HEAD'],
        AllowedHeaders: ['*'],
        ExposeHeaders: ['ETag'],
        MaxAgeSeconds: 3000,
      },
    ],
    null,
    2,
  );

function xmlText(xml: string, tag: string): string[] {
  const out: string[] = [];
  for (const match of xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g')))
    out.push(unescapeXml(match[1] ?? ''));
  return out;
}

function unescapeXml(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

export function s3Target(config: S3Config, egress: Pick<Egress, 'fetchFor'>): BackupTarget {
  const endpoint = config.endpoint.replace(/\/+$/, '');
  const prefix = config.prefix ? `${config.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
  const bucketURL = `${endpoint}/${encodeURIComponent(config.bucket)}`;
  const label = `bucket ${config.bucket} at ${new URL(endpoint).host}`;
  const egressTarget = { providerId: BACKUP_S3, baseURL: endpoint, region: config.region || 'auto' };
  const request = (url: string, init: RequestInit) =>
    send(egress, egressTarget, label, url, init, s3CorsHint);
  const objectURL = (name: string) => `${bucketURL}/${prefix}${name}`;
  const failed = async (response: Response, what: string) => {
    const text = await response.text().catch(() => '');
    return failedAnswer(label, what, response.status, xmlText(text, 'Code')[0]);
  };

  return {
    label,
    async put(name, bytes) {
      const response = await request(objectURL(name), {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'application/octet-stream' },
      });
      if (!response.ok) throw await failed(response, `write ${name}`);
      await response.body?.cancel();
    },
    async get(name) {
      const response = await request(objectURL(name), { method: 'GET' });
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) throw await failed(response, `read ${name}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    async list(namePrefix) {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const query = new URLSearchParams({ 'list-type': '2', prefix: prefix + namePrefix });
        if (token) query.set('continuation-token', token);
        const response = await request(`${bucketURL}?${query}`, { method: 'GET' });
        if (!response.ok) throw await failed(response, 'list the backup');
        const xml = await response.text();
        for (const key of xmlText(xml, 'Key')) names.push(key.slice(prefix.length));
        token =
          xmlText(xml, 'IsTruncated')[0] === 'true' ? xmlText(xml, 'NextContinuationToken')[0] : undefined;
      } while (token);
      return names;
    },
    async delete(name) {
      const response = await request(objectURL(name), { method: 'DELETE' });
      if (!response.ok && response.status !== 404) throw await failed(response, `delete ${name}`);
      await response.body?.cancel();
    },
  };
}
