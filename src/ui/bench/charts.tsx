import type { StrategySummary } from '../../evaluation/summary.ts';
import {
  formatAxisDollars,
  formatAxisTokens,
  linearScale,
  niceTicks,
  placePointLabels,
  stackSegments,
  truncateLabel,
} from './chart-math.ts';

/** A worker's colour: its place in the pool picks one of the theme's worker colours (--w0 … --w7). */
export function workerColour(worker: string, order: readonly string[]): string {
  const at = order.indexOf(worker);
  return `var(--w${(at >= 0 ? at : order.length) % 8})`;
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

interface ChartProps {
  summaries: readonly StrategySummary[];
  labelOf: (strategyId: string) => string;
}

/** Accuracy (y) against mean cost per task (x): one labelled point per strategy. */
export function AccuracyCostChart({ summaries, labelOf }: ChartProps) {
  const width = 520;
  const height = 300;
  const m = { top: 18, right: 28, bottom: 48, left: 56 };
  // A strategy none of whose items could be scored has no accuracy to place.
  const points = summaries.flatMap((s) =>
    s.accuracy === undefined
      ? []
      : [
          {
            id: s.strategyId,
            label: labelOf(s.strategyId),
            accuracy: s.accuracy,
            cost: s.items ? s.cost / s.items : 0,
          },
        ],
  );
  const xTicks = niceTicks(Math.max(0, ...points.map((p) => p.cost)), 5);
  const yTicks = [0, 0.25, 0.5, 0.75, 1];
  const x = linearScale(xTicks.at(-1) ?? 1, m.left, width - m.right);
  const y = linearScale(1, height - m.bottom, m.top);
  const summary = points.length
    ? `Accuracy against cost per task. ${points
        .map((p) => `${p.label}: ${percent(p.accuracy)} at ${formatAxisDollars(p.cost)} per task`)
        .join('; ')}.`
    : 'Accuracy against cost per task: no scored results yet.';
  // Each label goes where it overlaps no other label or point (long ones are truncated, in full in a tooltip).
  const labels = placePointLabels(
    points.map((p) => ({ px: x(p.cost), py: y(p.accuracy), label: p.label })),
    { left: m.left + 2, top: 2, right: width - 2, bottom: height - m.bottom - 2 },
  );
  return (
    <svg
      class="bench-chart"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={summary}
      data-testid="accuracy-cost-chart"
    >
      <g class="axis">
        {yTicks.map((t) => (
          <g key={`y${t}`}>
            <line class="grid" x1={m.left} x2={width - m.right} y1={y(t)} y2={y(t)} />
            <text x={m.left - 8} y={y(t)} text-anchor="end" dominant-baseline="middle">
              {percent(t)}
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <g key={`x${t}`}>
            <line class="tick" x1={x(t)} x2={x(t)} y1={height - m.bottom} y2={height - m.bottom + 5} />
            <text x={x(t)} y={height - m.bottom + 18} text-anchor="middle" data-testid="x-tick">
              {formatAxisDollars(t)}
            </text>
          </g>
        ))}
        <line class="domain" x1={m.left} x2={width - m.right} y1={height - m.bottom} y2={height - m.bottom} />
        <line class="domain" x1={m.left} x2={m.left} y1={m.top} y2={height - m.bottom} />
        <text class="axis-title" x={(m.left + width - m.right) / 2} y={height - 8} text-anchor="middle">
          Cost per task (USD)
        </text>
        <text
          class="axis-title"
          transform={`translate(14 ${(m.top + height - m.bottom) / 2}) rotate(-90)`}
          text-anchor="middle"
        >
          Accuracy
        </text>
      </g>
      {points.map((p, i) => {
        const label = labels[i]!;
        return (
          <g key={p.id} class="point" data-testid="chart-point" data-strategy={p.id}>
            <title>{`${p.label}: ${percent(p.accuracy)} at ${formatAxisDollars(p.cost)} per task`}</title>
            <circle cx={x(p.cost)} cy={y(p.accuracy)} r={5} />
            <text
              x={label.x}
              y={label.y}
              text-anchor={label.anchor}
              class="point-label"
              data-testid="point-label"
            >
              {label.text}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Row labels fit the bar chart's 170-unit left margin at the 12 px label font (about 7 units a character). */
const ROW_LABEL_CHARS = 22;

/** Tokens per task for each strategy, one stacked bar per strategy, coloured by worker. */
export function TokensByWorkerChart({
  summaries,
  labelOf,
  workers,
  workerLabelOf = (worker) => worker,
}: ChartProps & { workers: readonly string[]; workerLabelOf?: (worker: string) => string }) {
  const rowHeight = 30;
  const m = { top: 10, right: 24, bottom: 44, left: 170 };
  const width = 520;
  const height = m.top + m.bottom + Math.max(1, summaries.length) * rowHeight;
  const seen = [
    ...workers,
    ...new Set(summaries.flatMap((s) => Object.keys(s.tokensByWorker)).filter((w) => !workers.includes(w))),
  ];
  const used = seen.filter((w) => summaries.some((s) => (s.tokensByWorker[w] ?? 0) > 0));
  const rows = summaries.map((s) => {
    const perTask: Record<string, number> = {};
    for (const [w, n] of Object.entries(s.tokensByWorker)) perTask[w] = s.items ? n / s.items : 0;
    return { id: s.strategyId, label: labelOf(s.strategyId), segments: stackSegments(perTask, seen) };
  });
  const max = Math.max(0, ...rows.map((r) => r.segments.reduce((sum, seg) => sum + seg.value, 0)));
  const ticks = niceTicks(max, 5);
  const x = linearScale(ticks.at(-1) ?? 1, m.left, width - m.right);
  const summary = rows.length
    ? `Tokens per task by worker. ${rows
        .map(
          (r) =>
            `${r.label}: ${
              r.segments.map((seg) => `${workerLabelOf(seg.worker)} ${Math.round(seg.value)}`).join(', ') ||
              'no tokens'
            }`,
        )
        .join('; ')}.`
    : 'Tokens per task by worker: no results yet.';
  return (
    <figure class="bench-figure">
      <svg
        class="bench-chart"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={summary}
        data-testid="tokens-chart"
      >
        <g class="axis">
          {ticks.map((t) => (
            <g key={t}>
              <line class="grid" x1={x(t)} x2={x(t)} y1={m.top} y2={height - m.bottom} />
              <text x={x(t)} y={height - m.bottom + 16} text-anchor="middle">
                {formatAxisTokens(t)}
              </text>
            </g>
          ))}
          <text class="axis-title" x={(m.left + width - m.right) / 2} y={height - 8} text-anchor="middle">
            Tokens per task
          </text>
        </g>
        {rows.map((row, i) => {
          const top = m.top + i * rowHeight + 5;
          return (
            <g key={row.id} data-testid="bar" data-strategy={row.id}>
              <text
                x={m.left - 8}
                y={top + (rowHeight - 10) / 2}
                text-anchor="end"
                dominant-baseline="middle"
                data-testid="bar-label"
              >
                <title>{row.label}</title>
                {truncateLabel(row.label, ROW_LABEL_CHARS)}
              </text>
              {row.segments.map((seg) => (
                <rect
                  key={seg.worker}
                  data-testid="bar-segment"
                  data-worker={seg.worker}
                  x={x(seg.start)}
                  y={top}
                  width={Math.max(1, x(seg.start + seg.value) - x(seg.start))}
                  height={rowHeight - 10}
                  style={{ fill: workerColour(seg.worker, seen) }}
                />
              ))}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="bench-legend" data-testid="tokens-legend">
          {used.map((w) => (
            <li key={w}>
              <span class="swatch" aria-hidden="true" style={{ background: workerColour(w, seen) }} />
              {workerLabelOf(w)}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
