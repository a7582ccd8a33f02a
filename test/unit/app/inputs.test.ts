import { describe, expect, it } from 'vitest';
import { readPrefs } from '../../../src/app/prefs.ts';

describe('planning preferences', () => {
  it('falls back to the defaults and clamps what was stored', () => {
    expect(readPrefs(null)).toEqual({ maxSteps: 5, maxDepth: 2 });
    expect(readPrefs('not json')).toEqual({ maxSteps: 5, maxDepth: 2 });
    expect(readPrefs('{"maxSteps":9,"maxDepth":-1}')).toEqual({ maxSteps: 5, maxDepth: 0 });
    expect(readPrefs('{"maxSteps":2.5,"maxDepth":1}')).toEqual({ maxSteps: 5, maxDepth: 1 });
  });
});
