import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { planNote } from '../../../src/app/runs/plan-notes.ts';
import type { Step } from '../../../src/shared/plan/index.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

const step = (worker: string, task = 't'): Step => ({ worker, task, sees: [] });
const labels = { w1: 'Shouter', w2: 'Parrot' };

describe('the note on a plan the conductor could not write as it meant to', () => {
  it('is one sentence that names the worker by its label and counts the steps that stood', () => {
    const reason =
      "The conductor's plan was invalid twice (Step 0 is bad. Step 0 is bad.; then Step 0 is bad.), so Parrot alone.";
    const alone = planNote(
      { plan: { steps: [step('w2')] }, fallback: { reason, issues: ['Step 0 is bad.'] } },
      0,
      labels,
    );
    expect(alone).toEqual({
      text: "The conductor's plan could not be used, so Parrot answers the question alone.",
      details: ['Step 0 is bad.'],
    });
    // Two steps on screen: one stood, the fallback's answers after it; the note says so.
    const after = planNote({ plan: { steps: [step('w1'), step('w2')] }, fallback: { reason } }, 1, labels);
    expect(after?.text).toBe(
      "The conductor's plan could not be used in full, so Parrot answers after the step already running.",
    );
    expect(after?.text).not.toMatch(/one (step|worker)|\(|w2/);
    // An older thread sends no issues: its reason is the detail.
    expect(after?.details).toEqual([reason]);
    const full = planNote({ plan: { steps: [step('w1'), step('w2')] }, fallback: { reason } }, 2, labels);
    expect(full?.text).toBe(
      "The conductor's plan could not be used in full: only the 2 steps it had written run.",
    );
    expect(planNote({ plan: { steps: [step('w1')] } }, 0, labels)).toBeUndefined();
  });
});

const KEY = 'sk-plan-note-test-AAAAAAAAAAAA';
const keyed = keyedTestProvider(KEY);

describe('the plan note in a run', () => {
  // A self-check before the work, written twice: the thread falls back to one worker.
  const misplaced =
    '{"thought":"t","steps":[{"worker":"self","task":"Check first","sees":[]},{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat","sees":[1]}]}';

  async function reviewed(name: string) {
    const services = await keyedServices(name, keyed.provider, KEY);
    const app = testAppState({ ...services, conductor: scriptedConductor(misplaced) });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 2 };
    const pool = [keyed.worker('w1', 'Shouter', 'upper'), keyed.worker('w2', 'Parrot', 'echo')];
    await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review: true }, pool);
    return app;
  }

  it('says what happened once, with each validator message once behind the details', async () => {
    const app = await reviewed('plan-note-once');
    const note = app.runs.currentRun.value?.planNote;
    expect(note?.text).toMatch(
      /^The conductor's plan could not be used, so \w+ answers the question alone\.$/,
    );
    expect(note?.details.length).toBeGreaterThan(0);
    expect(new Set(note?.details).size).toBe(note?.details.length);
    expect(note?.details.some((line) => /self-check/.test(line))).toBe(true);
  });

  it('stays while the plan runs as the conductor left it, and goes once the user replaced it', async () => {
    const kept = await reviewed('plan-note-kept');
    const plan = kept.runs.pendingReview.value!.plan;
    await kept.runs.runReviewed(plan);
    expect(kept.runs.currentRun.value?.planNote).toBeDefined();
    await kept.runs.whenIdle();

    const replaced = await reviewed('plan-note-replaced');
    await replaced.runs.runReviewed({ steps: [{ worker: 'w1', task: 'Say hello', sees: [] }] });
    expect(replaced.runs.currentRun.value?.planNote).toBeUndefined();
    await replaced.runs.whenIdle();
    expect(replaced.runs.currentRun.value?.phase).toBe('done');
    expect(replaced.runs.currentRun.value?.planNote).toBeUndefined();
  });

  it('is stored with the run, streamed or reviewed, and shown again when the run is reopened', async () => {
    for (const review of [false, true]) {
      const name = `plan-note-stored-${review}`;
      const services = await keyedServices(name, keyed.provider, KEY);
      const app = testAppState({ ...services, conductor: scriptedConductor(misplaced) });
      app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 2 };
      const pool = [keyed.worker('w1', 'Shouter', 'upper'), keyed.worker('w2', 'Parrot', 'echo')];
      await app.runs.ask({ question: 'Greet me.', mode: 'conductor', review }, pool);
      if (review) await app.runs.runReviewed(app.runs.pendingReview.value!.plan);
      await app.runs.whenIdle();
      const shown = app.runs.currentRun.value!;
      expect(shown.phase).toBe('done');
      expect(shown.planNote).toBeDefined();
      const stored = await services.runStore.getRun(shown.id);
      expect(stored?.run.planNote).toEqual(shown.planNote);

      // Another page (History, after a reload) opens the stored run: the note is there as it was.
      const other = testAppState({ ...services, conductor: scriptedConductor(misplaced) });
      expect(await other.runs.openRun(shown.id)).toBeUndefined();
      expect(other.runs.currentRun.value?.planNote).toEqual(shown.planNote);
    }
  });
});
