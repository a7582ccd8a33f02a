import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { scriptedConductor } from './scripted-conductor.ts';
import { until } from './signal-until.ts';
import { keyedServices, keyedTestProvider, testAppState } from './test-app-state.ts';

// Ask with review off on a locked vault: the plan runs as it streams, so the passphrase is asked for when
// the first step that sends a saved key is about to be sent, before any request. (Run and Resume on a locked vault: test/browser/vault-unlock.spec.ts.)

const KEY = 'sk-ask-locked-AAAAAAAAAAAAAAAA';
const PASS = 'correct horse battery staple';
const keyed = keyedTestProvider(KEY);

describe('ask() without review on a locked vault', () => {
  it('asks for the passphrase before anything is sent: declined, the run fails saying so; unlocked, it runs', async () => {
    const { runStore, ledger, vault, egress } = await keyedServices('ask-locked', keyed.provider, KEY);
    await vault.setPassphrase(PASS);
    vault.lock();
    const plan = '{"thought":"one","steps":[{"worker":"w1","task":"Say hello","sees":[]}]}';
    const app = testAppState({ runStore, ledger, egress, vault, conductor: scriptedConductor(plan) });
    app.prefs.planPrefs.value = { maxSteps: 3, maxDepth: 0 };
    const pool = [keyed.worker('w1', 'Shouter', 'upper')];
    const chats = () => keyed.provider.requests.filter((r) => r.path === '/v1/chat/completions');
    const question = { question: 'Greet me.', mode: 'conductor' as const, review: false };
    const asked = () => until(app.unlock.unlockRequest, (request) => request !== undefined);

    const declined = app.runs.ask(question, pool);
    const request = await asked();
    expect(request?.purpose).toBe('to run your question');
    request?.settle(false);
    await declined;
    await app.runs.whenIdle();
    const failed = app.runs.currentRun.value!;
    expect(failed.phase).toBe('failed');
    // The step that needed the key fails saying so, once: declining is not a failure to try again.
    expect(failed.steps[0]?.error).toContain('The vault is still locked');
    expect(app.unlock.unlockRequest.value).toBeUndefined();
    expect(chats()).toEqual([]);
    expect((await ledger.list({ runId: failed.id })).filter((e) => e.sent)).toEqual([]);
    expect(vault.state()).toBe('locked');

    const unlocked = app.runs.ask(question, pool);
    expect((await asked())?.purpose).toBe('to run your question');
    await vault.unlock(PASS);
    await unlocked;
    await app.runs.whenIdle();
    const done = app.runs.currentRun.value!;
    expect(done.error).toBeUndefined();
    expect(done.phase).toBe('done');
    expect(app.unlock.unlockRequest.value).toBeUndefined();
    expect(chats().map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`]);
    expect((await runStore.getRun(done.id))?.run.status).toBe('done');
  });
});
