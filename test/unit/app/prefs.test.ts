import { describe, expect, it } from 'vitest';
import { readAskPrefs } from '../../../src/app/prefs.ts';

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
