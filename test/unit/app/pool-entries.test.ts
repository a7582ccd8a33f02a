import { describe, expect, it } from 'vitest';
import { poolEntries } from '../../../src/app/pool-entries.ts';
import { suggestPool, workerFromPreset } from '../../../src/pool/worker-rules.ts';
import { presetById } from '../../../src/providers/catalog.ts';
import { buildPlanMessages } from '../../../workers/prompt/prompt.ts';

describe('poolEntries', () => {
  it('tells the conductor which workers search the web, from the catalog to the pool line', () => {
    const searcher = workerFromPreset(presetById('openai')!, 'gpt-4o-mini-search-preview', 'w2');
    expect(searcher.webSearch).toBe(true);
    const pool = [...suggestPool(['openai']), searcher];
    const entries = poolEntries(pool);
    expect(entries[0]).not.toHaveProperty('webSearch');
    expect(entries[1]).toEqual({
      id: 'w2',
      label: 'GPT-4o mini Search',
      strengths: 'recent events and facts, with sources',
      costTier: 'low',
      webSearch: true,
    });
    const [system] = buildPlanMessages({
      question: 'Q?',
      pool: entries,
      mode: 'router',
      maxSteps: 1,
      maxDepth: 0,
    });
    expect(system?.content).toContain('- w2: GPT-4o mini Search (cost low, searches the web).');
    expect(system?.content).toMatch(/- w1: GPT-5 mini \(cost low\)\. /);
  });
});
