import { formatBytes } from '../shared/format-bytes.ts';
import { formatDuration } from './format.ts';

/** One progress report as the conductor bridge gives it while a model loads. */
export interface ProgressSample {
  /** 0..1 */
  fraction: number;
  loadedBytes?: number;
  totalBytes?: number;
  text?: string;
  phase?: string;
  /** The engine's own speed and time-left figures, preferred when given. */
  bytesPerSecond?: number;
  secondsLeft?: number;
}

export interface ProgressView {
  percent: number;
  loadedBytes?: number;
  totalBytes?: number;
  /** Bytes per second over the recent window, when bytes are known and moving. */
  bytesPerSec?: number;
  /** Estimated milliseconds left. */
  etaMs?: number;
  phase?: string;
  text?: string;
}

/**
 * Turns a stream of progress samples into percent, speed and time left. Speed is measured over a sliding
 * window (default 5 s) so a stall shows up quickly and a burst from the cache does not dominate.
 */
export class ProgressTracker {
  private readonly points: Array<{ t: number; bytes: number; fraction: number }> = [];
  private last: ProgressView = { percent: 0 };

  constructor(private readonly windowMs = 5000) {}

  update(sample: ProgressSample, now: number = performance.now()): ProgressView {
    const fraction = Math.min(1, Math.max(0, Number.isFinite(sample.fraction) ? sample.fraction : 0));
    const bytes =
      sample.loadedBytes ?? (sample.totalBytes !== undefined ? fraction * sample.totalBytes : undefined);
    this.points.push({ t: now, bytes: bytes ?? 0, fraction });
    while (this.points.length > 2 && now - this.points[0]!.t > this.windowMs) this.points.shift();
    const first = this.points[0]!;
    const dt = (now - first.t) / 1000;
    const view: ProgressView = { percent: Math.round(fraction * 1000) / 10 };
    if (bytes !== undefined) view.loadedBytes = bytes;
    if (sample.totalBytes !== undefined) view.totalBytes = sample.totalBytes;
    if (sample.phase !== undefined) view.phase = sample.phase;
    if (sample.text !== undefined) view.text = sample.text;
    if (dt > 0.2) {
      if (bytes !== undefined && bytes > first.bytes) {
        view.bytesPerSec = (bytes - first.bytes) / dt;
        if (sample.totalBytes !== undefined) {
          view.etaMs = (Math.max(0, sample.totalBytes - bytes) / view.bytesPerSec) * 1000;
        }
      }
      const fractionRate = (fraction - first.fraction) / dt;
      if (view.etaMs === undefined && fractionRate > 0) view.etaMs = ((1 - fraction) / fractionRate) * 1000;
    }
    if (sample.bytesPerSecond !== undefined && sample.bytesPerSecond > 0)
      view.bytesPerSec = sample.bytesPerSecond;
    if (sample.secondsLeft !== undefined && Number.isFinite(sample.secondsLeft))
      view.etaMs = sample.secondsLeft * 1000;
    if (fraction >= 1) view.etaMs = 0;
    this.last = view;
    return view;
  }

  get current(): ProgressView {
    return this.last;
  }
}

/** "312 MB of 1.10 GB · 42.0% · 8.5 MB/s · 1 min 36 s left" parts, for the progress bar's text. */
export function describeProgress(view: ProgressView): string[] {
  const parts: string[] = [];
  if (view.loadedBytes !== undefined && view.totalBytes !== undefined) {
    parts.push(`${formatBytes(view.loadedBytes)} of ${formatBytes(view.totalBytes)}`);
  } else if (view.loadedBytes !== undefined && view.loadedBytes > 0) {
    parts.push(formatBytes(view.loadedBytes));
  }
  parts.push(`${view.percent.toFixed(1)}%`);
  if (view.bytesPerSec !== undefined) parts.push(`${formatBytes(view.bytesPerSec)}/s`);
  if (view.etaMs !== undefined && view.percent < 100) parts.push(`${formatDuration(view.etaMs)} left`);
  return parts;
}

/**
 * The engine's own progress line, when it adds something to the figures: not while bytes are counted,
 * where the figures already say what it says (and an engine's own time left would be a second, different one).
 */
export function engineNote(view: ProgressView): string | undefined {
  if (!view.text) return undefined;
  const counted = view.loadedBytes !== undefined || view.totalBytes !== undefined;
  return view.phase === 'download' && counted ? undefined : view.text;
}
