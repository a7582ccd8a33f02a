import { describe, expect, it } from 'vitest';
import { parseHash, routeHash } from '../../../src/app/router.ts';

describe('hash routes', () => {
  it('round-trips every screen, including run ids that need escaping', () => {
    for (const route of [
      { name: 'start' },
      { name: 'ask' },
      { name: 'history' },
      { name: 'settings' },
      { name: 'bench' },
      { name: 'run', id: 'a/b c' },
    ] as const) {
      expect(parseHash(routeHash(route), { name: 'ask' })).toEqual(route);
    }
  });
  it('falls back for empty or unknown hashes', () => {
    expect(parseHash('', { name: 'start' })).toEqual({ name: 'start' });
    expect(parseHash('#/nope', { name: 'ask' })).toEqual({ name: 'ask' });
    expect(parseHash('#/run/', { name: 'ask' })).toEqual({ name: 'ask' });
  });
});
