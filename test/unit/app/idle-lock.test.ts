import 'fake-indexeddb/auto';
import { signal } from '@preact/signals';
import { describe, expect, it } from 'vitest';
import { startIdleLock } from '../../../src/app/idle-lock.ts';
import { readVaultPrefs } from '../../../src/app/prefs.ts';
import { openVault } from '../../../src/vault/vault.ts';

const PASS = 'correct horse battery staple';

/** A clock the test moves by hand: timers run when `advance` passes them. */
function manualClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 1;
  return {
    setTimer: (run: () => void, ms: number) => {
      const id = next++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimer: (id: unknown) => void timers.delete(id as number),
    advance(ms: number) {
      now += ms;
      for (const [id, timer] of [...timers]) {
        if (timer.at > now) continue;
        timers.delete(id);
        timer.run();
      }
    },
    pending: () => timers.size,
  };
}

async function setUp(minutes: number | undefined) {
  const vault = await openVault(`idle-lock-${crypto.randomUUID()}`);
  await vault.setPassphrase(PASS);
  const clock = manualClock();
  const uses = new Set<() => void>();
  const chosen = signal(minutes);
  const stop = startIdleLock({
    vault: async () => vault,
    minutes: chosen,
    onUse: (used) => {
      uses.add(used);
      return () => uses.delete(used);
    },
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  });
  await expect.poll(() => clock.pending()).toBeGreaterThan(0);
  const use = () => {
    for (const used of uses) used();
  };
  return { vault, clock, chosen, stop, use, uses };
}

describe('the vault locks itself after the idle time chosen', () => {
  it('locks after that many minutes without use, and each use starts the time again', async () => {
    const { vault, clock, use } = await setUp(15);
    clock.advance(14 * 60_000);
    use();
    clock.advance(14 * 60_000);
    expect(vault.state()).toBe('unlocked');
    clock.advance(60_000);
    expect(vault.state()).toBe('locked');
    // Locked, nothing is timed until it is unlocked again.
    expect(clock.pending()).toBe(0);
    await vault.unlock(PASS);
    await expect.poll(() => clock.pending()).toBe(1);
    clock.advance(15 * 60_000);
    expect(vault.state()).toBe('locked');
  });

  it('never locks when the choice is never, and follows a change of the choice', async () => {
    const { vault, clock, chosen } = await setUp(5);
    chosen.value = undefined;
    clock.advance(24 * 60 * 60_000);
    expect(vault.state()).toBe('unlocked');
    chosen.value = 30;
    clock.advance(30 * 60_000);
    expect(vault.state()).toBe('locked');
  });

  it('stops watching when stopped', async () => {
    const { vault, clock, stop, uses } = await setUp(5);
    stop();
    expect(uses.size).toBe(0);
    clock.advance(60 * 60_000);
    expect(vault.state()).toBe('unlocked');
  });

  it('reads the choice back from storage, refusing what is not a whole number of minutes', () => {
    expect(readVaultPrefs('{"lockAfterMinutes":15}')).toEqual({ lockAfterMinutes: 15 });
    expect(readVaultPrefs('{"lockAfterMinutes":0}')).toEqual({});
    expect(readVaultPrefs('{"lockAfterMinutes":"15"}')).toEqual({});
    expect(readVaultPrefs('not json')).toEqual({});
    expect(readVaultPrefs(null)).toEqual({});
  });
});
