import { describe, expect, it } from 'vitest';
import { llamaThreads } from '../../../../workers/engines/llama-threads.ts';

describe('llamaThreads', () => {
  it('uses half the logical cores when the page is cross-origin isolated', () => {
    expect(llamaThreads({ crossOriginIsolated: true, hardwareConcurrency: 8 })).toBe(4);
    expect(llamaThreads({ crossOriginIsolated: true, hardwareConcurrency: 2 })).toBe(1);
  });

  it('never asks for no thread, on one core or when the browser reports none', () => {
    expect(llamaThreads({ crossOriginIsolated: true, hardwareConcurrency: 1 })).toBe(1);
    expect(llamaThreads({ crossOriginIsolated: true, hardwareConcurrency: 0 })).toBe(1);
  });

  it('uses one thread without cross-origin isolation (no SharedArrayBuffer)', () => {
    expect(llamaThreads({ crossOriginIsolated: false, hardwareConcurrency: 16 })).toBe(1);
  });

  it("keeps the model's own setting", () => {
    expect(llamaThreads({ crossOriginIsolated: true, hardwareConcurrency: 16, requested: 3 })).toBe(3);
  });
});
