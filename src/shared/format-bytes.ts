const KiB = 1024;
const MiB = KiB * 1024;
const GiB = MiB * 1024;

/**
 * A size as the user reads it, and the conductor too: "2 KB", "3.4 MB", "4.23 GB". Counted in powers of
 * 1024, as browsers, GPUs and web-llm count memory, and named KB, MB and GB everywhere Baton shows a size.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes >= GiB) return `${(bytes / GiB).toFixed(2)} GB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MB`;
  if (bytes >= KiB) return `${(bytes / KiB).toFixed(0)} KB`;
  return `${Math.round(bytes)} B`;
}
