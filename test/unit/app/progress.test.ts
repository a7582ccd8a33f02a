import { describe, expect, it } from 'vitest';
import { describeProgress, ProgressTracker } from '../../../src/app/progress.ts';

const MB = 1024 * 1024;

describe('model download progress', () => {
  it('computes percent, speed and time left from byte samples', () => {
    const t = new ProgressTracker();
    t.update({ fraction: 0, loadedBytes: 0, totalBytes: 100 * MB }, 0);
    const view = t.update({ fraction: 0.25, loadedBytes: 25 * MB, totalBytes: 100 * MB }, 5000);
    expect(view.percent).toBe(25);
    expect(view.bytesPerSec).toBeCloseTo(5 * MB);
    expect(view.etaMs).toBeCloseTo(15_000);
    expect(describeProgress(view)).toEqual(['25.0 MB of 100.0 MB', '25.0%', '5.0 MB/s', '15 s left']);
  });

  it('measures speed over a sliding window, so a stall shows up', () => {
    const t = new ProgressTracker(2000);
    t.update({ fraction: 0, loadedBytes: 0, totalBytes: 100 * MB }, 0);
    t.update({ fraction: 0.5, loadedBytes: 50 * MB, totalBytes: 100 * MB }, 1000);
    t.update({ fraction: 0.5, loadedBytes: 50 * MB, totalBytes: 100 * MB }, 4000);
    const stalled = t.update({ fraction: 0.5, loadedBytes: 50 * MB, totalBytes: 100 * MB }, 6000);
    expect(stalled.bytesPerSec).toBeUndefined();
  });

  it('falls back to the fraction rate when bytes are unknown, and prefers the engine figures', () => {
    const t = new ProgressTracker();
    t.update({ fraction: 0 }, 0);
    const view = t.update({ fraction: 0.5 }, 10_000);
    expect(view.etaMs).toBeCloseTo(10_000);
    const engine = t.update({ fraction: 0.6, bytesPerSecond: 3 * MB, secondsLeft: 7 }, 11_000);
    expect(engine.bytesPerSec).toBe(3 * MB);
    expect(engine.etaMs).toBe(7000);
    expect(t.update({ fraction: 1 }, 12_000).etaMs).toBe(0);
  });
});
