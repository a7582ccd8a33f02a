import { useEffect, useState } from 'preact/hooks';
import { formatFixed } from '../app/format.ts';
import { categoryName, meanRewardText, strategyName } from '../app/learned-view.ts';
import { downloadText } from '../app/save-file.ts';
import { lambdaOf } from '../learning/bandit.ts';
import { labelsOf } from '../shared/worker-ids.ts';
import { useAppState } from './app-context.ts';

/**
 * Settings → What Baton learned: auto mode's learned state per question category, the "quality ↔ cost"
 * slider, and export, import and reset. It never leaves the device except as the user's own download.
 */
export function LearnedStatePanel() {
  const app = useAppState();
  const { auto } = app;
  const [message, setMessage] = useState<{ kind: 'info' | 'error'; text: string } | undefined>();
  useEffect(() => void auto.watch(), [auto]);
  const labels = labelsOf(app.pool.runPool.value);
  const slider = auto.slider.value;
  const lambda = lambdaOf(slider);
  const categories = Object.entries(auto.learned.value.categories).filter(
    ([, arms]) => arms && Object.keys(arms).length,
  );

  const onImport = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      auto.importText(await file.text());
      setMessage({ kind: 'info', text: `Imported what Baton learned from ${file.name}.` });
    } catch (error) {
      setMessage({ kind: 'error', text: `${file.name}: ${(error as Error).message}` });
    }
  };

  return (
    <section class="card" aria-labelledby="learned-title" data-testid="learned-panel">
      <h2 id="learned-title">What Baton learned</h2>
      <p class="field-hint">
        Auto mode learns which way of answering suits each kind of question from two sources: the answers you
        mark Good or Bad, and the items the bench scores (each right or wrong answer counts as one mark). It
        stays on this device: nothing of it is sent with any request.
      </p>
      <label for="learned-slider">Quality ↔ cost</label>
      <input
        id="learned-slider"
        type="range"
        min={0}
        max={1}
        step={0.05}
        value={slider}
        data-testid="learned-slider"
        aria-describedby="learned-slider-hint"
        onInput={(e) => auto.setSlider(Number(e.currentTarget.value))}
      />
      <p id="learned-slider-hint" class="field-hint">
        {slider === 0
          ? 'Quality only: cost does not count.'
          : `A dollar spent weighs as much as ${formatFixed(lambda, 0)} good answers (a cent: ${formatFixed(lambda / 100, 2)}).`}
      </p>
      {categories.length === 0 ? (
        <p class="muted" data-testid="learned-empty">
          Nothing learned yet: Auto mode starts from the conductor.
        </p>
      ) : (
        <table data-testid="learned-table">
          <thead>
            <tr>
              <th scope="col">Questions</th>
              <th scope="col">Answered by</th>
              <th scope="col">Tries</th>
              <th scope="col">Good</th>
              <th scope="col">Mean reward</th>
            </tr>
          </thead>
          <tbody>
            {categories.flatMap(([category, arms]) =>
              Object.entries(arms ?? {}).map(([arm, s]) => (
                <tr key={`${category}:${arm}`}>
                  <td>{categoryName(category)}</td>
                  <td>{strategyName(arm, labels)}</td>
                  <td>{s.tries}</td>
                  <td>{s.good}</td>
                  <td>{meanRewardText(s, lambda)}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      <div class="row">
        <button
          type="button"
          data-testid="learned-export"
          onClick={() => downloadText('baton-learned.json', auto.exportText(), 'application/json')}
        >
          Export (JSON)
        </button>
        <label class="button" for="learned-import">
          Import (JSON)
        </label>
        <input
          id="learned-import"
          type="file"
          accept="application/json,.json"
          class="visually-hidden"
          data-testid="learned-import"
          onChange={(e) => void onImport(e.currentTarget)}
        />
        <button
          type="button"
          data-testid="learned-reset"
          onClick={() => {
            if (
              !confirm('Forget everything Baton learned, and the answers you marked? This cannot be undone.')
            )
              return;
            void auto.reset().then(() => setMessage({ kind: 'info', text: 'Baton forgot what it learned.' }));
          }}
        >
          Reset
        </button>
      </div>
      {message && (
        <p class="alert" data-kind={message.kind} role="status" data-testid="learned-message">
          {message.text}
        </p>
      )}
    </section>
  );
}
