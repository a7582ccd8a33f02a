import { afterEach, describe, expect, it } from 'vitest';
import { createPrefs, readAskPrefs } from '../../../src/app/prefs.ts';

describe('Ask screen preferences', () => {
  it('remembers "Review the plan before it runs", and reads anything else as off', () => {
    expect(readAskPrefs('{"reviewPlan":true}')).toEqual({ reviewPlan: true });
    expect(readAskPrefs('{"reviewPlan":false}')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('{"reviewPlan":"yes"}')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('null')).toEqual({ reviewPlan: false });
    expect(readAskPrefs('not json')).toEqual({ reviewPlan: false });
    expect(readAskPrefs(null)).toEqual({ reviewPlan: false });
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
