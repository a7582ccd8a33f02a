import { describe, expect, it } from 'vitest';
import { CATALOG, cloudOrigins, isLoopback, originOf, presetById } from '../../../src/providers/catalog.ts';

const REQUIRED = [
  'openai',
  'anthropic',
  'gemini',
  'openrouter',
  'groq',
  'mistral',
  'deepseek',
  'together',
  'xai',
  'ollama',
  'lmstudio',
  'llamacpp',
  'vllm',
  'custom',
];

describe('provider catalog', () => {
  it('has every provider the issue names, once', () => {
    expect(CATALOG.map((p) => p.id).sort()).toEqual([...REQUIRED].sort());
  });

  it('gives each preset the fields a request and the pool need', () => {
    for (const p of CATALOG) {
      expect(p.name, p.id).toBeTruthy();
      expect(['bearer', 'x-api-key', 'none'], p.id).toContain(p.auth);
      expect(typeof p.stripSdkHeaders, p.id).toBe('boolean');
      expect(typeof p.hasModelsEndpoint, p.id).toBe('boolean');
      if (p.kind === 'custom') continue;
      expect(() => originOf(p.baseURL), p.id).not.toThrow();
      expect(p.baseURL, p.id).not.toMatch(/\/$|\/chat\/completions$/);
      expect(p.models.length, p.id).toBeGreaterThan(0);
      for (const m of p.models) {
        expect(m.price.inputPerM, `${p.id} ${m.id}`).toBeGreaterThanOrEqual(0);
        expect(m.price.outputPerM, `${p.id} ${m.id}`).toBeGreaterThanOrEqual(0);
        expect(m.strengths, `${p.id} ${m.id}`).not.toContain('\n');
      }
    }
  });

  it('pins cloud presets to https and needs their key; local servers need no key and say how to enable CORS', () => {
    for (const p of CATALOG.filter((p) => p.kind === 'cloud')) {
      expect(new URL(p.baseURL).protocol, p.id).toBe('https:');
      expect(p.needsKey && !p.baseURLEditable, p.id).toBe(true);
      expect(
        p.models.every((m) => m.price.inputPerM > 0),
        p.id,
      ).toBe(true);
    }
    for (const p of CATALOG.filter((p) => p.kind === 'local')) {
      expect(isLoopback(p.baseURL), p.id).toBe(true);
      expect(p.needsKey, p.id).toBe(false);
      expect(p.corsHint, p.id).toBeTruthy();
    }
    expect(presetById('ollama')!.corsHint).toContain('OLLAMA_ORIGINS');
    expect(presetById('lmstudio')!.corsHint).toMatch(/--cors|Enable CORS/);
  });

  it('knows the browser quirks: Anthropic opt-in header and x-api-key, SDK headers stripped for strict providers', () => {
    const anthropic = presetById('anthropic')!;
    expect(anthropic.auth).toBe('x-api-key');
    expect(anthropic.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(anthropic.headers['anthropic-version']).toBeTruthy();
    for (const id of ['mistral', 'gemini']) expect(presetById(id)!.stripSdkHeaders).toBe(true);
    expect(presetById('gemini')!.baseURL).toBe('https://generativelanguage.googleapis.com/v1beta/openai');
  });

  it('lists the cloud origins for the CSP, without duplicates or local hosts', () => {
    const origins = cloudOrigins();
    expect(origins).toContain('https://api.openai.com');
    expect(origins).toContain('https://generativelanguage.googleapis.com');
    expect(new Set(origins).size).toBe(origins.length);
    expect(origins.some((o) => isLoopback(o))).toBe(false);
  });
});
