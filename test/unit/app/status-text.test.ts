import { describe, expect, it } from 'vitest';
import { statusText } from '../../../src/app/status-text.ts';

describe('statusText', () => {
  it('says a stored status in the words every screen uses: a run the user stopped is stopped', () => {
    expect(statusText('cancelled')).toBe('stopped');
    expect(statusText('partial')).toBe('done, some steps failed');
    expect(statusText('planned')).toBe('plan not run yet');
    expect(statusText('planning-failed')).toBe('planning failed');
  });
});
