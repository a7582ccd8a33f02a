/**
 * What a backup says when its place refuses: a bucket without CORS (with the rule that lets this page in),
 * a full quota, refused credentials. Node's fetch knows no CORS, so the CORS case is the failure a browser
 * gives (the Fetch standard's network error, a TypeError) in front of a real s3rver that is up, which a
 * no-cors probe still reaches, as in test/unit/egress/connection-causes.test.ts.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError } from '../../../../src/backup/format.ts';
import { failedAnswer } from '../../../../src/backup/targets/http.ts';
import { s3Target } from '../../../../src/backup/targets/s3.ts';
import { createEgress } from '../../../../src/egress/egress.ts';
import { openLedger } from '../../../../src/egress/ledger.ts';
import { startS3, type TestServer } from '../servers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startS3();
});
afterAll(async () => {
  await server.close();
});

describe('a place that refuses', () => {
  it('without CORS: says so, and shows the bucket rule that allows this page', async () => {
    const ledger = await openLedger('cors-ledger');
    const egress = createEgress({
      vault: { keyFor: async () => 'S3RVER:S3RVER', keysNotBoundTo: async () => [] },
      ledger,
      fetchImpl: (input, init) =>
        init?.mode === 'cors' ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init),
    });
    const target = s3Target({ endpoint: server.url, bucket: 'baton', region: 'us-east-1' }, egress);
    const error = await target.get('baton-backup.json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupError);
    expect(error).toMatchObject({ problem: 'cors' });
    expect((error as BackupError).message).toMatch(/does not let this page read its answers \(CORS\)/);
    const rule = JSON.parse((error as BackupError).hint ?? '[]') as { AllowedMethods: string[] }[];
    expect(rule[0]?.AllowedMethods).toEqual(['GET', 'PUT', 'DELETE', 'HEAD']);
    // The refused request is in the ledger as a backup's.
    const rows = await ledger.list();
    expect(rows.some((r) => r.purpose === 'backup' && r.state === 'error')).toBe(true);
  });

  it('a full bucket or quota, and refused credentials, each in their own words', () => {
    expect(failedAnswer('WebDAV at x', 'write o1', 507)).toMatchObject({ problem: 'full' });
    expect(failedAnswer('bucket b', 'write o1', 403, 'QuotaExceeded').message).toMatch(
      /full or over its quota \(403 QuotaExceeded\)/,
    );
    expect(failedAnswer('bucket b', 'write o1', 403, 'ExpiredToken')).toMatchObject({
      problem: 'credentials',
    });
    expect(failedAnswer('bucket b', 'write o1', 500).message).toBe('bucket b could not write o1 (500).');
  });
});
