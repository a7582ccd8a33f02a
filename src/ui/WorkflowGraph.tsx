import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describeGraph } from '../app/graph/description.ts';
import { DEFAULT_GRAPH_WIDTH, layoutGraph } from '../app/graph/layout.ts';
import { fitText } from '../app/graph/node-size.ts';
import { workerColor } from '../app/worker-color.ts';
import { namerFor, type WorkerLabels } from '../app/worker-names.ts';

export interface GraphStep {
  worker: string;
  task: string;
  sees: 'all' | readonly number[];
  state?: string;
}

/** The task line is set in 11 px type, a little narrower than the title. */
const TASK_CHAR_W = 6.4;

/** Steps out of the box's view, above and below, as the user has scrolled it. */
interface Hidden {
  above: number;
  below: number;
}

/** Nodes whose middle is outside the box's visible band: those the user would not see without scrolling. */
function hiddenNodes(box: HTMLElement, nodes: ReadonlyArray<{ y: number; height: number }>): Hidden {
  const top = box.scrollTop;
  const bottom = top + box.clientHeight;
  let above = 0;
  let below = 0;
  for (const node of nodes) {
    const middle = node.y + node.height / 2;
    if (middle < top) above++;
    else if (middle > bottom) below++;
  }
  return { above, below };
}

function hiddenText({ above, below }: Hidden): string | undefined {
  const steps = (n: number) => (n === 1 ? 'step' : 'steps');
  const them = (n: number) => (n === 1 ? 'it' : 'them');
  if (below && above)
    return `${above} ${steps(above)} above and ${below} below: scroll the graph to see them.`;
  if (below) return `${below} more ${steps(below)} below: scroll the graph to see ${them(below)}.`;
  if (above) return `${above} ${steps(above)} above: scroll the graph up to see ${them(above)}.`;
  return undefined;
}

/**
 * The workflow as an inline SVG: one node per step (coloured by worker, styled by state), one edge per
 * `sees`. It is laid out for the width of its box (stages top to bottom, src/app/graph/layout.ts), measured
 * here, so every node is inside the card; a plan taller than the box scrolls in it, and a line under it says
 * how many steps are out of view. It is an image with a text description for screen readers; the step list
 * below it is the interactive alternative.
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
  const box = useRef<HTMLElement>(null);
  const [width, setWidth] = useState<number | undefined>(undefined);
  const [hidden, setHidden] = useState<Hidden>({ above: 0, below: 0 });
  const arrowId = `arrow-${useId()}`;
  const nameOf = namerFor(workerLabels);
  const layout = layoutGraph(steps, nameOf, width ?? DEFAULT_GRAPH_WIDTH);

  // The box's width sets the layout; measured before paint, and again whenever the card changes size.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setWidth(element.clientWidth);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [steps.length > 0]);

  // Which steps are out of view changes with a scroll, a resize or a new drawing; not with every draw of a
  // running plan (a streamed token redraws the run view): reading the box's size forces a layout.
  const drawing = `${layout.width}×${layout.height}:${layout.nodes.map((n) => n.y).join(',')}`;
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const update = () => {
      const next = hiddenNodes(element, layout.nodes);
      setHidden((last) => (last.above === next.above && last.below === next.below ? last : next));
    };
    update();
    element.addEventListener('scroll', update, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(update);
    observer?.observe(element);
    return () => {
      element.removeEventListener('scroll', update);
      observer?.disconnect();
    };
  }, [drawing]);

  if (steps.length === 0) return null;
  const description = describeGraph(steps, nameOf);
  const out = hiddenText(hidden);
  return (
    <>
      <section
        ref={box}
        class="graph-wrap"
        data-testid="workflow-graph-scroll"
        data-scrolls={out ? 'true' : undefined}
        // A scroll box must be reachable by keyboard to be scrolled with the arrow keys (axe: scrollable-region-focusable).
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the box scrolls, so it must take focus.
        tabIndex={0}
        aria-label="Workflow graph"
        aria-describedby={out ? `${arrowId}-hidden` : undefined}
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
                id={arrowId}
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
              <path key={`${edge.from}-${edge.to}`} class="edge" d={edge.d} marker-end={`url(#${arrowId})`} />
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
                  <title>{`${node.title}${step.state ? `, ${step.state}` : ''}: ${task}`}</title>
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
      {out && (
        <p id={`${arrowId}-hidden`} class="graph-more small muted" data-testid="graph-hidden-steps">
          {out}
        </p>
      )}
    </>
  );
}
