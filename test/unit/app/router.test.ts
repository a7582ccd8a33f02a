import { afterEach, describe, expect, it } from 'vitest';
import { createRouter, parseHash, routeHash } from '../../../src/app/router.ts';

describe('hash routes', () => {
  it('round-trips every screen, including run ids that need escaping', () => {
    for (const route of [
      { name: 'start' },
      { name: 'ask' },
      { name: 'history' },
      { name: 'settings' },
      { name: 'settings', section: 'planning' },
      { name: 'ledger' },
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

describe('the route of an app state', () => {
  const global = globalThis as { location?: { hash: string } };
  const original = global.location;
  afterEach(() => {
    global.location = original;
  });

  it('two app states keep their own route: navigating in one leaves the other where it was', () => {
    global.location = { hash: '' };
    const a = createRouter();
    const b = createRouter();
    a.navigate({ name: 'run', id: 'r1' });
    expect(global.location.hash).toBe('#/run/r1');
    expect(a.route.value).toEqual({ name: 'run', id: 'r1' });
    expect(b.route.value).toEqual({ name: 'ask' });
  });
});
