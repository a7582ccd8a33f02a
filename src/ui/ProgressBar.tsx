import { describeProgress, engineNote, type ProgressView } from '../app/progress.ts';

/** A real progress bar: the native <progress> (announced by screen readers) plus bytes, speed and time left. */
export function ProgressBar({ view, label }: { view: ProgressView; label: string }) {
  const parts = describeProgress(view);
  const note = engineNote(view);
  return (
    <div class="progress" data-testid="model-progress" data-percent={view.percent}>
      <label>
        <span class="visually-hidden">{label}</span>
        <progress max={100} value={view.percent} aria-valuetext={parts.join(', ')}>
          {view.percent}%
        </progress>
      </label>
      <div class="progress-stats">
        {parts.map((part) => (
          <span key={part}>{part}</span>
        ))}
        {note && <span class="muted">{note}</span>}
      </div>
    </div>
  );
}
