import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { ConductorBridge } from '../../../src/conductor/bridge.ts';
import { scriptedConductor } from './scripted-conductor.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

// The conductor's thread starts on a first visit only once the service worker has taken the page (so the
// engine's files are cached for offline use), which can take seconds. A run of cloud workers needs no
// thread: its steps must not wait for one.

const KEY = 'sk-run-without-thread-AAAAAAAAAA';
const keyed = keyedTestProvider(KEY);
const PLAN =
  '{"thought":"shout, then repeat","steps":[{"worker":"w1","task":"Say hello","sees":[]},{"worker":"w2","task":"Repeat it","sees":[0]}]}';

describe('a run of cloud workers', () => {
  it('runs a stored plan while the conductor thread has not started, and never asks for it', async () => {
    const services = await keyedServices('run-without-thread', keyed.provider, KEY);
    const pool = [keyed.worker('w1', 'Shouter', 'upper'), keyed.worker('w2', 'Parrot', 'echo')];
    const planner = testAppState({ ...services, conductor: scriptedConductor(PLAN) });
    planner.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    await planner.runs.ask({ question: 'Greet me.', mode: 'conductor', review: false, planOnly: true }, pool);
    const id = planner.runs.currentRun.value!.id;

    // The page after a reload, on a visit whose thread never comes.
    let asked = 0;
    const app = testAppState({
      ...services,
      conductor: scriptedConductor(PLAN),
      openBridge: () => {
        asked++;
        return new Promise<ConductorBridge>(() => {});
      },
    });
    await app.runs.openRun(id);
    await app.runs.runReviewed(app.runs.pendingReview.value!.plan);
    await app.runs.whenIdle();
    expect(app.runs.currentRun.value?.phase).toBe('done');
    expect(app.runs.currentRun.value?.steps.map((s) => s.text)).toEqual(['SAY HELLO', expect.any(String)]);
    expect(asked).toBe(0);
  });
});
