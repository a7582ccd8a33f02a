import { describe, expect, it } from 'vitest';
import { exportRunJson, exportRunMarkdown, parseRunImport } from '../../../src/app/export.ts';
import { goodRun, goodStep } from '../../fixtures/run-records.ts';

describe('a step that was taken over, in the exports', () => {
  const pool = [
    { ...goodRun('r', 1000).pool[0]!, id: 'w1', label: 'Claude Sonnet' },
    { ...goodRun('r', 1000).pool[0]!, id: 'w2', label: 'GPT-5 mini' },
  ];
  const run = goodRun('r', 1000, { pool });
  const takeover = { from: 'w1', to: 'w2', reason: 'Provider error (529): <b>overloaded</b>', at: 5 };
  const step = goodStep('r', 0, { worker: 'w2', takeovers: [takeover] });

  it('says in the Markdown who failed, why (inert) and who took over', () => {
    expect(exportRunMarkdown(run, [step])).toContain(
      '- Taken over: Claude Sonnet failed (Provider error (529): &lt;b&gt;overloaded&lt;/b&gt;), GPT-5 mini took over',
    );
  });

  it('keeps the takeover through a JSON export and import', () => {
    const result = parseRunImport(exportRunJson(run, [step]));
    if (!result.ok) throw new Error(result.error);
    expect(result.data.steps[0]?.takeovers).toEqual([takeover]);
  });
});
