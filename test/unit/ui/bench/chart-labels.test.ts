import { describe, expect, it } from 'vitest';
import { type Box, placePointLabels, truncateLabel } from '../../../../src/ui/bench/chart-math.ts';

const BOUNDS: Box = { left: 58, top: 2, right: 518, bottom: 250 };

function overlap(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

function expectReadable(labels: ReturnType<typeof placePointLabels>, points: { px: number; py: number }[]) {
  for (const [i, a] of labels.entries()) {
    expect(a.free, `label ${i} found a free place`).toBe(true);
    expect(a.box.left).toBeGreaterThanOrEqual(BOUNDS.left);
    expect(a.box.right).toBeLessThanOrEqual(BOUNDS.right);
    expect(a.box.top).toBeGreaterThanOrEqual(BOUNDS.top);
    expect(a.box.bottom).toBeLessThanOrEqual(BOUNDS.bottom);
    for (const b of labels.slice(i + 1)) expect(overlap(a.box, b.box), `${a.full} / ${b.full}`).toBe(false);
    for (const p of points) {
      const dot = { left: p.px - 5, right: p.px + 5, top: p.py - 5, bottom: p.py + 5 };
      expect(overlap(a.box, dot), `${a.full} covers a point`).toBe(false);
    }
  }
}

describe('accuracy/cost chart labels', () => {
  it('keeps labels of points that share a place, or sit 100 units apart, from overlapping', () => {
    // Six strategies at the same cost and accuracy (all free, all right), and two long labels side by
    // side: the old rule (stack only within 90 units) drew those two on top of each other.
    const points = [
      ...['Single (Echo A)', 'Single (Upper B)', 'Router', 'Conductor', 'MoA 2×1', 'Self-consistency ×3'].map(
        (label) => ({ px: 58, py: 18, label }),
      ),
      { px: 200, py: 134, label: 'Plan → execute → verify (A)' },
      { px: 300, py: 134, label: 'Plan → execute → verify (B)' },
    ];
    const labels = placePointLabels(points, BOUNDS);
    expect(labels).toHaveLength(points.length);
    expectReadable(labels, points);
  });

  it('puts a label left of a point at the right edge, and truncates a long one (full text kept)', () => {
    const [edge] = placePointLabels([{ px: 510, py: 100, label: 'Conductor' }], BOUNDS);
    expect(edge!.anchor).toBe('end');
    const [long] = placePointLabels([{ px: 100, py: 100, label: 'x'.repeat(60) }], BOUNDS);
    expect(long!.text).toBe(`${'x'.repeat(23)}…`);
    expect(long!.full).toBe('x'.repeat(60));
    expect(truncateLabel('short', 24)).toBe('short');
  });
});
