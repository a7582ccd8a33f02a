import { afterAll, beforeAll } from 'vitest';
import type { DialectMode } from './dialects/index.ts';
import { type ProviderOptions, startProvider, type TestProvider } from './server.ts';

/**
 * One test provider per dialect in `modes`, started before the file's tests and closed after them. Returns
 * the provider speaking a mode (an error for a mode not started).
 */
export function useDialectProviders(
  modes: readonly DialectMode[],
  options: Omit<ProviderOptions, 'dialect'>,
): (mode: DialectMode) => TestProvider {
  const providers = new Map<DialectMode, TestProvider>();
  beforeAll(async () => {
    for (const mode of modes) providers.set(mode, await startProvider({ ...options, dialect: mode }));
  });
  afterAll(async () => {
    await Promise.all([...providers.values()].map((p) => p.close()));
  });
  return (mode) => {
    const provider = providers.get(mode);
    if (!provider) throw new Error(`no ${mode} provider`);
    return provider;
  };
}
