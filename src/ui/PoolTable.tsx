import { presetById } from '../providers/catalog.ts';
import type { WorkerSpec } from '../shared/worker-spec.ts';
import { hostOf } from './pool-draft.ts';

/** The pool's cloud workers as a table: strengths and enabled edited in place, Edit and Remove per row. */
export function PoolTable({
  workers,
  onSave,
  onEdit,
  onRemove,
}: {
  workers: readonly WorkerSpec[];
  onSave: (worker: WorkerSpec) => void;
  onEdit: (worker: WorkerSpec) => void;
  onRemove: (worker: WorkerSpec) => void;
}) {
  return workers.length === 0 ? (
    <p class="muted">No cloud workers yet.</p>
  ) : (
    <div class="table-wrap">
      <table class="data" data-testid="pool-table">
        <caption class="visually-hidden">Workers in the pool</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Label</th>
            <th scope="col">Provider · model</th>
            <th scope="col">Strengths</th>
            <th scope="col">Price in/out per M</th>
            <th scope="col">Enabled</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr key={w.id}>
              <td>
                <code>{w.id}</code>
              </td>
              <td>{w.label}</td>
              <td>
                {presetById(w.providerId)?.name ?? w.providerId} · {w.model}
                {w.webSearch && <span class="badge">searches the web</span>}
                {w.vision && <span class="badge">takes images</span>}
                {w.baseURL && (
                  <>
                    <br />
                    <span class="muted small" data-testid={`worker-host-${w.id}`} title={w.baseURL}>
                      {hostOf(w.baseURL)}
                    </span>
                  </>
                )}
              </td>
              <td>
                <label class="visually-hidden" for={`strengths-${w.id}`}>
                  Strengths of {w.label}
                </label>
                <input
                  id={`strengths-${w.id}`}
                  value={w.strengths}
                  onChange={(e) => onSave({ ...w, strengths: e.currentTarget.value })}
                />
              </td>
              <td>{w.price ? `$${w.price.inputPerM} / $${w.price.outputPerM}` : 'unknown'}</td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${w.label} enabled`}
                  checked={w.enabled}
                  onChange={(e) => onSave({ ...w, enabled: e.currentTarget.checked })}
                />
              </td>
              <td class="row-actions">
                <button
                  type="button"
                  class="small"
                  aria-label={`Edit ${w.label}`}
                  onClick={() => onEdit(w)}
                  data-testid={`edit-worker-${w.id}`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="small danger"
                  aria-label={`Remove ${w.label}`}
                  onClick={() => onRemove(w)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
