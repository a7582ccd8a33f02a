/**
 * A step's tools in plan review: each tool the plan grants it, with a button that takes the grant away
 * (least privilege: the user sees and can narrow what each step may call before anything runs).
 */
export function StepToolsField({
  index,
  tools,
  onChange,
}: {
  index: number;
  tools: readonly string[];
  onChange: (tools: string[] | undefined) => void;
}) {
  return (
    <div class="step-tools" data-testid={`edit-step-${index}-tools`}>
      <span class="small muted">May call:</span>{' '}
      {tools.map((name) => (
        <span class="chip" key={name} data-testid="step-tool">
          <code>{name}</code>{' '}
          <button
            type="button"
            class="small"
            aria-label={`Remove tool ${name} from step ${index}`}
            data-testid={`remove-tool-${name}`}
            onClick={() => {
              const left = tools.filter((t) => t !== name);
              onChange(left.length > 0 ? left : undefined);
            }}
          >
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
