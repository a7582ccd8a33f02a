// The plan review (the app's PlanEditor) of a plan for a pool whose workers have labels, as the Ask screen
// shows it; no conductor model is needed to look at it.
import { render } from 'preact';
import { PlanEditor } from '../../src/ui/PlanEditor.tsx';
import '../../src/ui/styles.css';

render(
  <PlanEditor
    plan={{
      thought: 'Draft, check, then answer.',
      steps: [
        { worker: 'w1', task: 'Draft an answer.', sees: [] },
        { worker: 'w3', task: 'Check the draft.', sees: [0] },
        { worker: 'w1', task: 'Write the final answer.', sees: 'all' },
      ],
    }}
    workers={[
      { id: 'w1', label: 'Drafting model' },
      { id: 'w3', label: 'Checking model' },
    ]}
    maxSteps={5}
    onRun={() => undefined}
    onDiscard={() => undefined}
  />,
  document.getElementById('app')!,
);
