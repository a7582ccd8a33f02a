import { useEffect, useState } from 'preact/hooks';
import type { S3Form, WebDavForm } from '../app/backup-places.ts';
import { formatTime } from '../app/format.ts';
import { downloadText } from '../app/save-file.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { useAppState } from './app-context.ts';
import { ConnectSrcHint } from './ConnectSrcHint.tsx';
import { Field } from './Field.tsx';

type Kind = 's3' | 'webdav' | 'folder' | 'file';

const KIND_LABELS: Record<Kind, string> = {
  s3: 'S3-compatible bucket (AWS S3, R2, B2, MinIO)',
  webdav: 'WebDAV (Nextcloud and the like)',
  folder: 'A folder on this computer',
  file: 'One file to download',
};

const SCHEDULES: [number, string][] = [
  [0, 'No schedule'],
  [15, 'Every 15 minutes'],
  [60, 'Every hour'],
  [1440, 'Every day'],
];

/** Each kind of record as the user calls it, one and many, in the order the status lists them. */
const KIND_NAMES: [string, string, string][] = [
  ['run', 'run', 'runs'],
  ['thread', 'thread', 'threads'],
  ['file', 'file', 'files'],
  ['outcome', 'mark', 'marks'],
  ['worker', 'worker', 'workers'],
  ['bench', 'bench run', 'bench runs'],
  ['settings', 'set of settings', 'sets of settings'],
  ['key', 'key', 'keys'],
];

/** What the last backup holds, in words: "12 runs, 3 threads, 2 files (48 KB)". */
function holdsText(holds: Record<string, number> | undefined, bytes: number | undefined): string {
  if (!holds) return '';
  const parts = KIND_NAMES.flatMap(([kind, one, many]) => {
    const n = holds[kind] ?? 0;
    return n > 0 ? [`${n} ${n === 1 ? one : many}`] : [];
  });
  return `${parts.join(', ')}${bytes ? ` (${formatBytes(bytes)})` : ''}`;
}

/**
 * Settings → Backups: where backups go (credentials go to the vault), the passphrase, when they run, the
 * last one and what it holds, Back up now and Restore, with progress. The state is the app's
 * (src/app/backups.ts); this keeps what is being typed.
 */
export function BackupsPanel() {
  const backups = useAppState().backups;
  const config = backups.config.value;
  const status = backups.status.value;
  const progress = backups.progress.value;
  const problem = backups.problem.value;
  const [kind, setKind] = useState<Kind>('s3');
  const [s3, setS3] = useState<S3Form>({
    endpoint: '',
    bucket: '',
    region: 'auto',
    prefix: '',
    accessKeyId: '',
    secret: '',
  });
  const [dav, setDav] = useState<WebDavForm>({ url: '', user: '', password: '' });
  const [passphrase, setPassphrase] = useState('');
  const [file, setFile] = useState<{ bytes: Uint8Array; name: string } | undefined>();
  const folders = typeof (globalThis as { showDirectoryPicker?: unknown }).showDirectoryPicker === 'function';

  useEffect(() => {
    void backups.load();
  }, []);
  useEffect(() => {
    const target = config?.target;
    if (!target) return;
    setKind(target.kind);
    if (target.kind === 's3')
      setS3((f) => ({
        ...f,
        endpoint: target.endpoint,
        bucket: target.bucket,
        region: target.region ?? 'auto',
        prefix: target.prefix ?? '',
      }));
    if (target.kind === 'webdav') setDav((f) => ({ ...f, url: target.url }));
  }, [config?.target]);

  const target = config?.target;
  const where =
    target?.kind === 's3'
      ? `bucket ${target.bucket} at ${target.endpoint}`
      : target?.kind === 'webdav'
        ? target.url
        : target?.kind === 'folder'
          ? `folder ${target.handle.name}`
          : target?.kind === 'file'
            ? 'one file to download'
            : undefined;

  const backUp = async () => {
    const bytes = await backups.backUpNow(passphrase || undefined);
    if (bytes)
      downloadText(
        `baton-backup-${new Date().toISOString().slice(0, 10)}.baton-backup`,
        new TextDecoder().decode(bytes),
        'application/octet-stream',
      );
    if (!backups.problem.value) setPassphrase('');
  };

  return (
    <section class="card" aria-labelledby="backups-title" data-testid="backups-panel">
      <h2 id="backups-title">Backups</h2>
      <p class="small muted">
        Threads, runs, files, what Baton learned, the pool and settings, encrypted in this browser with your
        backup passphrase before they leave, and kept where you choose: the place sees only sizes and times.
        Provider keys stay out unless you include them.
      </p>

      <form
        onSubmit={(e) => {
          e.preventDefault();
          // The secret leaves the form once it is in the vault; kept when saving failed.
          if (kind === 's3') void backups.saveS3(s3).then((ok) => ok && setS3((f) => ({ ...f, secret: '' })));
          else if (kind === 'webdav')
            void backups.saveWebDav(dav).then((ok) => ok && setDav((f) => ({ ...f, password: '' })));
          else if (kind === 'folder') void backups.chooseFolder();
          else void backups.useFile();
        }}
      >
        <div class="field">
          <label for="backup-kind">Where</label>
          <select
            id="backup-kind"
            data-testid="backup-kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as Kind)}
          >
            {(Object.keys(KIND_LABELS) as Kind[])
              .filter((k) => k !== 'folder' || folders)
              .map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
          </select>
        </div>
        {kind === 's3' && (
          <>
            <Field
              id="backup-endpoint"
              label="Endpoint"
              type="url"
              value={s3.endpoint}
              onValue={(v) => setS3({ ...s3, endpoint: v })}
              placeholder="https://<account>.r2.cloudflarestorage.com"
            >
              <ConnectSrcHint baseURL={s3.endpoint} />
            </Field>
            <div class="row">
              <Field
                id="backup-bucket"
                label="Bucket"
                value={s3.bucket}
                onValue={(v) => setS3({ ...s3, bucket: v })}
              />
              <Field
                id="backup-region"
                label="Region"
                value={s3.region}
                onValue={(v) => setS3({ ...s3, region: v })}
              />
              <Field
                id="backup-prefix"
                label="Folder in the bucket (optional)"
                value={s3.prefix}
                onValue={(v) => setS3({ ...s3, prefix: v })}
              />
            </div>
            <div class="row">
              <Field
                id="backup-key-id"
                label="Access key ID"
                value={s3.accessKeyId}
                onValue={(v) => setS3({ ...s3, accessKeyId: v })}
                autocomplete="off"
              />
              <Field
                id="backup-secret"
                label="Secret access key"
                type="password"
                value={s3.secret}
                onValue={(v) => setS3({ ...s3, secret: v })}
                autocomplete="off"
                hint="Kept in the vault, sent only to this endpoint."
              />
            </div>
          </>
        )}
        {kind === 'webdav' && (
          <>
            <Field
              id="backup-dav-url"
              label="Folder URL"
              type="url"
              value={dav.url}
              onValue={(v) => setDav({ ...dav, url: v })}
              placeholder="https://cloud.example.com/remote.php/dav/files/me/Baton/"
            >
              <ConnectSrcHint baseURL={dav.url} />
            </Field>
            <div class="row">
              <Field
                id="backup-dav-user"
                label="User"
                value={dav.user}
                onValue={(v) => setDav({ ...dav, user: v })}
                autocomplete="off"
              />
              <Field
                id="backup-dav-password"
                label="Password"
                type="password"
                value={dav.password}
                onValue={(v) => setDav({ ...dav, password: v })}
                autocomplete="off"
                hint="Kept in the vault, sent only to this server."
              />
            </div>
          </>
        )}
        <button type="submit" data-testid="backup-save-target">
          {kind === 'folder' ? 'Choose the folder' : 'Use this place'}
        </button>
      </form>

      {where && (
        <p class="small" data-testid="backup-where">
          Backups go to {where}.
        </p>
      )}
      {where && (
        <div class="row">
          <label class="check">
            <input
              type="checkbox"
              checked={config?.afterRun ?? true}
              onChange={(e) =>
                void backups.setWhen({
                  afterRun: e.currentTarget.checked,
                  everyMinutes: config?.everyMinutes ?? 0,
                  includeKeys: config?.includeKeys ?? false,
                })
              }
            />{' '}
            After each run
          </label>
          <select
            aria-label="Schedule"
            data-testid="backup-schedule"
            value={String(config?.everyMinutes ?? 0)}
            onChange={(e) =>
              void backups.setWhen({
                afterRun: config?.afterRun ?? true,
                everyMinutes: Number(e.currentTarget.value),
                includeKeys: config?.includeKeys ?? false,
              })
            }
          >
            {SCHEDULES.map(([minutes, label]) => (
              <option key={minutes} value={String(minutes)}>
                {label}
              </option>
            ))}
          </select>
          <label class="check">
            <input
              type="checkbox"
              checked={config?.includeKeys ?? false}
              onChange={(e) =>
                void backups.setWhen({
                  afterRun: config?.afterRun ?? true,
                  everyMinutes: config?.everyMinutes ?? 0,
                  includeKeys: e.currentTarget.checked,
                })
              }
            />{' '}
            Include provider keys
          </label>
        </div>
      )}
      <Field
        id="backup-passphrase"
        label="Backup passphrase"
        type="password"
        value={passphrase}
        onValue={setPassphrase}
        autocomplete="new-password"
        hint="Needed for the first backup to a place and to restore in another browser. It cannot be recovered: without it the backup cannot be read."
      />
      <div class="row">
        <button
          type="button"
          class="primary"
          data-testid="backup-now"
          disabled={!where || progress !== undefined}
          onClick={() => void backUp()}
        >
          Back up now
        </button>
        <button
          type="button"
          data-testid="backup-restore"
          disabled={(!where && !file) || progress !== undefined}
          onClick={() => void backups.restoreNow(passphrase || undefined, file)}
        >
          Restore
        </button>
        <label class="small">
          Restore from a backup file{' '}
          <input
            type="file"
            data-testid="backup-file"
            onChange={(e) => {
              const chosen = e.currentTarget.files?.[0];
              if (chosen)
                void chosen
                  .arrayBuffer()
                  .then((b) => setFile({ bytes: new Uint8Array(b), name: chosen.name }));
            }}
          />
        </label>
      </div>
      {progress && (
        <p class="small" data-testid="backup-progress" aria-live="polite">
          {progress.action === 'backup' ? 'Backing up' : 'Restoring'}: {progress.done} of {progress.total}{' '}
          records
          {progress.bytes ? `, ${formatBytes(progress.bytes)} sent` : ''}{' '}
          <progress aria-label="Progress" max={Math.max(progress.total, 1)} value={progress.done} />
        </p>
      )}
      {problem && (
        <div class="alert" data-kind="error" role="alert" data-testid="backup-problem">
          <p>{problem.message}</p>
          {problem.hint && <pre data-testid="backup-cors-hint">{problem.hint}</pre>}
        </div>
      )}
      {backups.said.value && (
        <p class="alert" data-kind="ok" role="status" data-testid="backup-said">
          {backups.said.value}
        </p>
      )}
      {backups.reloadToApply.value && (
        <div class="alert" data-kind="warn" data-testid="backup-reload">
          <p>
            The restored settings apply when the page reloads; the restored threads, pool and marks are shown
            already.
          </p>
          <button type="button" onClick={() => globalThis.location.reload()}>
            Reload now
          </button>
        </div>
      )}
      <p class="small" data-testid="backup-status">
        {status.lastBackupAt
          ? `Backed up ${formatTime(status.lastBackupAt)}: ${holdsText(status.holds, status.bytes)}.`
          : 'Not backed up yet.'}
        {status.lastRestoreAt ? ` Last restore ${formatTime(status.lastRestoreAt)}.` : ''}
      </p>
      {status.notes && status.notes.length > 0 && (
        <ul class="small" data-testid="backup-notes">
          {status.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
