// The app's per-screen error boundary around a screen that throws while rendering, beside a live sibling.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { ScreenBoundary } from '../../src/ui/ScreenBoundary.tsx';

function Broken(): never {
  throw new Error('cannot read this record');
}

function Sibling() {
  const [count, setCount] = useState(0);
  return (
    <p>
      <span data-testid="sibling">the rest of the app</span>
      <button type="button" data-testid="sibling-button" onClick={() => setCount((n) => n + 1)}>
        Click
      </button>
      <output data-testid="sibling-count">{count}</output>
    </p>
  );
}

render(
  <>
    <ScreenBoundary name="broken">
      <Broken />
    </ScreenBoundary>
    <Sibling />
  </>,
  document.getElementById('app')!,
);
