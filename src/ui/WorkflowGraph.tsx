import { describeGraph, edgePath, fitText, layoutGraph, workerColor } from '../app/graph.ts';
import { namerFor, type WorkerLabels } from '../app/worker-names.ts';

export interface GraphStep {
  worker: string;
  task: string;
  sees: 'all' | readonly number[];
  state?: string;
}

/** The task line is set in 11 px type, a little narrower than the title. */
const TASK_CHAR_W = 6.4;

/**
 * The workflow as an inline SVG: one node per step (coloured by worker, styled by state), one edge per
 * `sees`. It is drawn at its own size inside a scroll box (focusable, so the keyboard scrolls it) rather
 * than shrunk to the card: a long plan scrolls instead of turning into an unreadable strip. It is an image
 * with a text description for screen readers; the step list below it is the interactive alternative.
 */
export function WorkflowGraph({
  steps,
  workerOrder,
  workerLabels = {},
}: {
  steps: readonly GraphStep[];
  workerOrder: readonly string[];
  /** The user's names for the workers (the graph shows these, not ids). */
  workerLabels?: WorkerLabels;
}) {
  const nameOf = namerFor(workerLabels);
  const layout = layoutGraph(steps, nameOf);
  if (steps.length === 0) return null;
  const description = describeGraph(steps, nameOf);
  return (
    <section
      class="graph-wrap"
      data-testid="workflow-graph-scroll"
      // A scroll box must be reachable by keyboard to be scrolled with the arrow keys (axe: scrollable-region-focusable).
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the box scrolls, so it must take focus.
      tabIndex={0}
      aria-label="Workflow graph (scrolls)"
    >
      <figure class="graph" data-testid="workflow-graph" style={{ margin: 0 }}>
        <svg
          role="img"
          aria-label={description}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={layout.width}
          height={layout.height}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" fill="var(--muted)" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path
              key={`${edge.from}-${edge.to}`}
              class="edge"
              d={edgePath(layout.nodes[edge.from]!, layout.nodes[edge.to]!)}
              marker-end="url(#arrow)"
            />
          ))}
          {layout.nodes.map((node) => {
            const step = steps[node.index]!;
            const color = workerColor(step.worker, workerOrder);
            const task = step.task.replace(/\s+/g, ' ');
            return (
              <g
                key={node.index}
                class="node"
                data-status={step.state ?? 'planned'}
                data-testid={`graph-node-${node.index}`}
                data-worker={step.worker}
                transform={`translate(${node.x},${node.y})`}
              >
                <title>{`${node.title} (${step.worker})${step.state ? `, ${step.state}` : ''}: ${task}`}</title>
                <rect width={node.width} height={node.height} rx="8" stroke={color} />
                <rect width="6" height={node.height} rx="3" fill={color} stroke="none" />
                <text x="14" y="20">
                  {fitText(node.title, node.width)}
                </text>
                <text class="sub" x="14" y="38">
                  {fitText(step.state ? `${step.state} · ${task}` : task, node.width, TASK_CHAR_W)}
                </text>
              </g>
            );
          })}
        </svg>
        <figcaption class="visually-hidden">{description}</figcaption>
      </figure>
    </section>
  );
}
