import { ESTIMATED } from '../app/format.ts';
import { costText } from '../app/price-text.ts';

/** What a History row (a run or a thread) cost: "estimated" when in part estimated, "unknown" unpriced. */
export function ListedCost(props: {
  cost: number;
  estimated: boolean | undefined;
  unpriced: boolean | undefined;
  testId: string;
  title?: string | undefined;
}) {
  return (
    <span data-testid={props.testId} title={props.title}>
      {props.estimated ? ESTIMATED : ''}
      {costText(props.cost, props.unpriced ? 1 : 0)}
    </span>
  );
}

/** A History row's Delete: asks `question` first; its label names the `kind` of row and its `name` (cut to 60 characters). */
export function DeleteButton(props: { kind: string; name: string; question: string; onDelete: () => void }) {
  return (
    <button
      type="button"
      class="small danger"
      aria-label={`Delete ${props.kind}: ${props.name.slice(0, 60)}`}
      onClick={() => {
        if (confirm(props.question)) props.onDelete();
      }}
    >
      Delete
    </button>
  );
}
