/**
 * Where a backup is kept: a bucket, a WebDAV server, a folder, or one file. Four calls over flat names;
 * everything above it (sealing, manifests, merging) is the same for each.
 */
export interface BackupTarget {
  /** For the user: "bucket baton at s3.example.com", "WebDAV at dav.example.com/baton/". */
  readonly label: string;
  put(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<void>;
  /** The object's bytes, or undefined when there is none of that name. */
  get(name: string): Promise<Uint8Array<ArrayBuffer> | undefined>;
  /** Every name starting with `prefix`. */
  list(prefix: string): Promise<string[]>;
  delete(name: string): Promise<void>;
}
