/**
 * A WebDAV collection (Nextcloud, ownCloud, Apache mod_dav, rclone serve webdav): PUT, GET, DELETE of
 * files, PROPFIND (Depth: 1) to list, MKCOL to make the collection once (RFC 4918). Basic auth, added by
 * egress from the vault's `user:password` for the server's origin.
 */

import { BACKUP_WEBDAV } from '../../egress/backup-endpoints.ts';
import type { Egress } from '../../egress/egress.ts';
import { type CorsHint, failedAnswer, send } from './http.ts';
import type { BackupTarget } from './target.ts';

export interface WebDavConfig {
  /** The collection backups go in: `https://cloud.example.com/remote.php/dav/files/me/Baton/`. */
  url: string;
}

/** The headers a WebDAV server (nginx or Apache in front of it) must send to let `origin` back up there. */
export const webDavCorsHint: CorsHint = (origin) =>
  [
    `Access-Control-Allow-Origin: ${origin}`,
    'Access-Control-Allow-Methods: GET, PUT, DELETE, PROPFIND, MKCOL, OPTIONS',
    'Access-Control-Allow-Headers: Authorization, Content-Type, Depth',
    'Access-Control-Max-Age: 3000',
    '(and answer OPTIONS preflights with 200, without asking for credentials)',
  ].join('\n');

/** The names in a PROPFIND multistatus: each `href`'s last segment (the collection's own is left out). */
function hrefNames(xml: string, collectionPath: string): string[] {
  const names: string[] = [];
  for (const match of xml.matchAll(/<(?:[\w-]+:)?href>([^<]*)<\/(?:[\w-]+:)?href>/g)) {
    let path = match[1] ?? '';
    try {
      path = decodeURIComponent(new URL(path, 'http://x').pathname);
    } catch {
      continue;
    }
    if (path.replace(/\/+$/, '') === collectionPath.replace(/\/+$/, '')) continue;
    const name = path.replace(/\/+$/, '').split('/').pop();
    if (name) names.push(name);
  }
  return names;
}

export function webDavTarget(config: WebDavConfig, egress: Pick<Egress, 'fetchFor'>): BackupTarget {
  const collection = config.url.endsWith('/') ? config.url : `${config.url}/`;
  const url = new URL(collection);
  const label = `WebDAV at ${url.host}${url.pathname}`;
  const egressTarget = { providerId: BACKUP_WEBDAV, baseURL: url.origin };
  const request = (href: string, init: RequestInit) =>
    send(egress, egressTarget, label, href, init, webDavCorsHint);
  const failed = (response: Response, what: string) => {
    void response.body?.cancel();
    return failedAnswer(label, what, response.status);
  };
  let made: Promise<void> | undefined;
  const makeCollection = () => {
    made ??= (async () => {
      const response = await request(collection, { method: 'MKCOL' });
      await response.body?.cancel();
      // 405: it exists already. 201: made.
      if (!response.ok && response.status !== 405) throw failed(response, 'make the backup folder');
    })();
    made.catch(() => {
      made = undefined;
    });
    return made;
  };

  return {
    label,
    async put(name, bytes) {
      await makeCollection();
      const response = await request(collection + name, {
        method: 'PUT',
        body: bytes,
        headers: { 'content-type': 'application/octet-stream' },
      });
      if (!response.ok) throw failed(response, `write ${name}`);
      await response.body?.cancel();
    },
    async get(name) {
      const response = await request(collection + name, { method: 'GET' });
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) throw failed(response, `read ${name}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    async list(prefix) {
      const response = await request(collection, {
        method: 'PROPFIND',
        headers: { depth: '1', 'content-type': 'application/xml' },
        body: '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><prop><getcontentlength/></prop></propfind>',
      });
      if (response.status === 404) {
        await response.body?.cancel();
        return [];
      }
      if (!response.ok) throw failed(response, 'list the backup');
      return hrefNames(await response.text(), url.pathname).filter((name) => name.startsWith(prefix));
    },
    async delete(name) {
      const response = await request(collection + name, { method: 'DELETE' });
      if (!response.ok && response.status !== 404) throw failed(response, `delete ${name}`);
      await response.body?.cancel();
    },
  };
}
