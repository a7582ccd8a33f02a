import { describeGraph, edgePath, layoutGraph, NODE_H, NODE_W, workerColor } from '../app/graph.ts';

export interface GraphStep {
  worker: string;
  task: string;
  sees: 'all' | readonly number[];
  state?: string;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The workflow as an inline SVG: one node per step (coloured by worker, styled by state), one edge per
 * `sees`. It is an image with a text description for screen readers; the step list below it is the
 * interactive alternative.
 */
export function WorkflowGraph({
  steps,
  workerOrder,
}: {
  steps: readonly GraphStep[];
  workerOrder: readonly string[];
}) {
  const layout = layoutGraph(steps);
  if (steps.length === 0) return null;
  const description = describeGraph(steps);
  return (
    <div class="graph-wrap">
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
            return (
              <g
                key={node.index}
                class="node"
                data-status={step.state ?? 'planned'}
                data-testid={`graph-node-${node.index}`}
                transform={`translate(${node.x},${node.y})`}
              >
                <rect width={NODE_W} height={NODE_H} rx="8" stroke={color} />
                <rect width="6" height={NODE_H} rx="3" fill={color} stroke="none" />
                <text x="14" y="20">
                  {`${node.index}. ${clip(step.worker, 14)}`}
                  {step.state ? ` · ${step.state}` : ''}
                </text>
                <text class="sub" x="14" y="38">
                  {clip(step.task.replace(/\s+/g, ' '), 22)}
                </text>
              </g>
            );
          })}
        </svg>
        <figcaption class="visually-hidden">{description}</figcaption>
      </figure>
    </div>
  );
}
