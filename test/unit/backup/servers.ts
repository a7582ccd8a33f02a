/**
 * A real S3-compatible server (s3rver) and a real WebDAV server (webdav-server), each on 127.0.0.1 at a
 * port the system picks, storing on disk in a fresh temporary folder the test can search.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v2 as webdav } from 'webdav-server';

/** The part of s3rver's API used here (the package ships no types): https://github.com/jamhall/s3rver#readme */
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export const S3_KEY = 'S3RVER:S3RVER';
export const DAV_USER = 'baton';
export const DAV_PASSWORD = 'dav-secret-pw';

export interface TestServer {
  url: string;
  directory: string;
  close(): Promise<void>;
}

/** A bucket CORS rule letting any page send what a backup sends (the browser test's page is on another port). */
const OPEN_CORS = `<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod><AllowedMethod>DELETE</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>`;

export async function startS3(bucket = 'baton', options: { cors?: boolean } = {}): Promise<TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'baton-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: options.cors ? [OPEN_CORS] : [] }],
  });
  const address = await server.run();
  return {
    url: `http://127.0.0.1:${address.port}`,
    directory,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function startWebDav(): Promise<TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'baton-dav-'));
  const users = new webdav.SimpleUserManager();
  const user = users.addUser(DAV_USER, DAV_PASSWORD, false);
  const privileges = new webdav.SimplePathPrivilegeManager();
  privileges.setRights(user, '/', ['all']);
  const server = new webdav.WebDAVServer({
    hostname: '127.0.0.1',
    port: 0,
    httpAuthentication: new webdav.HTTPBasicAuthentication(users, 'baton-test'),
    privilegeManager: privileges,
    requireAuthentification: true,
    rootFileSystem: new webdav.PhysicalFileSystem(directory),
  });
  const http = await server.startAsync(0);
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    directory,
    async close() {
      await server.stopAsync();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Every file under `directory` with its bytes (what the server keeps on its disk). */
export function filesUnder(directory: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}
