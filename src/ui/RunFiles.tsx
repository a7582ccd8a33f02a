import type { AttachmentRef } from '../records/runs-db.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { resolveFiles } from '../shared/plan/files.ts';
import type { Files } from '../shared/plan/index.ts';

/** The files a run was asked with, numbered as the plan's steps name them (names are untrusted text). */
export function RunFiles({ refs }: { refs: readonly AttachmentRef[] | undefined }) {
  if (!refs || refs.length === 0) return null;
  return (
    <ul class="attachment-chips" aria-label="Attached files" data-testid="run-files">
      {refs.map((ref, i) => (
        <li key={ref.id} class="attachment-chip">
          {i}. {ref.name} <span class="field-hint">{`${ref.kind} · ${formatBytes(ref.size)}`}</span>
        </li>
      ))}
    </ul>
  );
}

/** The files one step was sent, by name, or nothing when it got none. */
export function stepFilesText(files: Files | undefined, refs: readonly AttachmentRef[] | undefined): string {
  const names = resolveFiles(files, refs?.length ?? 0).map((i) => refs?.[i]?.name ?? `file ${i}`);
  return names.length > 0 ? `sent ${names.join(', ')}` : '';
}
