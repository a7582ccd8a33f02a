import type { PlanCheck } from '../shared/plan/checks.ts';

/**
 * The plan checks' findings on a plan under review (src/shared/plan/checks.ts): warnings, not errors, since
 * the user may run the plan as it is. "Apply these fixes" makes each change the list names, in the editor,
 * where the user sees the result before running it.
 */
export function PlanWarnings({ check, onApply }: { check: PlanCheck; onApply: () => void }) {
  const findings = check.findings.filter((f) => !f.blocking);
  if (findings.length === 0) return null;
  return (
    <section class="alert" data-kind="warn" aria-labelledby="plan-warnings-title" data-testid="plan-warnings">
      <h3 id="plan-warnings-title">Before it runs</h3>
      <ul>
        {findings.map((f) => (
          <li key={`${f.rule}-${f.stepIndex}`} data-rule={f.rule} data-step={f.stepIndex}>
            {f.message} <span class="muted">Fix: {f.fix}</span>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onApply} data-testid="apply-plan-fixes">
        Apply {findings.length === 1 ? 'this fix' : 'these fixes'}
      </button>
    </section>
  );
}
