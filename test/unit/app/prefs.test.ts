import { afterEach, describe, expect, it } from 'vitest';
import {
  createPrefs,
  parseSpendLimit,
  readAskPrefs,
  readSpendPrefs,
  readViewPrefs,
} from '../../../src/app/prefs.ts';

describe('Ask screen preferences', () => {
  it('remembers "Review the plan before it runs", and reads anything else as off', () => {
    expect(readAskPrefs('{"reviewPlan":true}')).toEqual({ reviewPlan: true });
    expect(readAskPrefs('{"reviewPlan":false}')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('{"reviewPlan":"yes"}')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('null')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('not json')).toEqual({ reviewPlan: false });
    expect(readAskPrefs(null)).toEqual({ reviewPlan: false });
  });

  it("remembers Direct mode's worker and its failover choice, dropping a damaged one", () => {
    expect(readAskPrefs('{"reviewPlan":false,"direct":{"worker":"w2","failover":true}}')).toEqual({
      reviewPlan: false,
      direct: { worker: 'w2', failover: true },
    });
    expect(readAskPrefs('{"direct":{"worker":"w2","failover":"yes"}}')).toEqual({
      reviewPlan: false,
      direct: { worker: 'w2' },
    });
    expect(readAskPrefs('{"direct":{"worker":7}}')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('{"direct":null}')).toEqual({ reviewPlan: false });
  });
});

describe('how answers are shown', () => {
  it('keeps the plan and steps closed under each answer unless the user asked for them open', () => {
    expect(readViewPrefs('{"stepsOpen":true}')).toEqual({ stepsOpen: true });
    expect(readViewPrefs('{"stepsOpen":1}')).toEqual({ stepsOpen: false });
    expect(readViewPrefs('not json')).toEqual({ stepsOpen: false });
    expect(readViewPrefs(null)).toEqual({ stepsOpen: false });
  });
});

describe('the preferences of an app state', () => {
  const global = globalThis as { localStorage?: Pick<Storage, 'getItem' | 'setItem'> };
  const original = global.localStorage;
  afterEach(() => {
    global.localStorage = original;
  });

  it('two app states keep their own limits and choices; each change is stored for the next visit', () => {
    const items = new Map<string, string>();
    global.localStorage = {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => void items.set(key, value),
    };
    const a = createPrefs();
    const b = createPrefs();
    const bPlan = b.planPrefs.value;

    a.planPrefs.value = { maxSteps: 2, maxDepth: 0 };
    a.askPrefs.value = { reviewPlan: true };

    expect(b.planPrefs.value).toEqual(bPlan);
    expect(b.askPrefs.value).toEqual({ reviewPlan: false });
    expect(JSON.parse(items.get('baton.planPrefs')!)).toEqual({ maxSteps: 2, maxDepth: 0 });
    expect(JSON.parse(items.get('baton.askPrefs')!)).toEqual({ reviewPlan: true });
    expect(createPrefs().askPrefs.value).toEqual({ reviewPlan: true });
  });
});

describe('the spend limit per run', () => {
  it('defaults to $0.50, keeps a stored amount or "no limit", and reads anything else as the default', () => {
    expect(readSpendPrefs(null)).toEqual({ runLimitUsd: 0.5 });
    expect(readSpendPrefs('{"runLimitUsd":2}')).toEqual({ runLimitUsd: 2 });
    expect(readSpendPrefs('{"runLimitUsd":0}')).toEqual({ runLimitUsd: 0 });
    expect(readSpendPrefs('{"runLimitUsd":null}')).toEqual({ runLimitUsd: null });
    expect(readSpendPrefs('{"runLimitUsd":-1}')).toEqual({ runLimitUsd: 0.5 });
    expect(readSpendPrefs('{"runLimitUsd":"1"}')).toEqual({ runLimitUsd: 0.5 });
    expect(readSpendPrefs('not json')).toEqual({ runLimitUsd: 0.5 });
  });

  it('reads what the user types: dollars, a leading $, or empty for no limit; else says what is expected', () => {
    expect(parseSpendLimit('0.50')).toEqual({ ok: true, limit: 0.5 });
    expect(parseSpendLimit(' $2 ')).toEqual({ ok: true, limit: 2 });
    expect(parseSpendLimit('.25')).toEqual({ ok: true, limit: 0.25 });
    expect(parseSpendLimit('')).toEqual({ ok: true, limit: null });
    for (const bad of ['-1', 'ten', '1e3', '0.5.1', 'Infinity']) {
      const parsed = parseSpendLimit(bad);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain(`“${bad}” is not an amount of dollars`);
    }
  });
});
