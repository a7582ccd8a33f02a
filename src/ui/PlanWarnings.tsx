import type { PlanCheck } from '../shared/plan/checks.ts';

/**
 * The plan checks' findings on a plan under review (src/shared/plan/checks.ts). Wasted work is a warning,
 * since the user may run the plan as it is; "Apply these fixes" makes each change the list names, in the
 * editor, where the user sees the result before running it. A step whose worker has no key is an error
 * (the editor disables Run): the run would fail before sending anything.
 */
export function PlanWarnings({ check, onApply }: { check: PlanCheck; onApply: () => void }) {
  const findings = check.findings.filter((f) => !f.blocking);
  const blocking = check.findings.filter((f) => f.blocking);
  return (
    <>
      {blocking.length > 0 && (
        <ul class="issues" data-testid="plan-blocked">
          {blocking.map((f) => (
            <li key={`${f.rule}-${f.stepIndex}`} data-rule={f.rule} data-step={f.stepIndex}>
              {f.message} {f.fix}
            </li>
          ))}
        </ul>
      )}
      {findings.length > 0 && <Warnings findings={findings} onApply={onApply} />}
    </>
  );
}

function Warnings({ findings, onApply }: { findings: PlanCheck['findings']; onApply: () => void }) {
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
