import { describe, expect, it } from 'vitest';
import {
  corsHintFor,
  defaultDraft,
  draftOf,
  localServerModel,
  needsLocalNetworkAccess,
  shortList,
  withServer,
} from '../../../src/app/local-server-draft.ts';

describe('the local planner server form', () => {
  it("starts at Ollama's base URL, and follows the server chosen unless the user typed a URL", () => {
    const draft = defaultDraft();
    expect(draft).toEqual({ server: 'ollama', baseURL: 'http://localhost:11434/v1', model: '' });
    expect(withServer(draft, 'lmstudio').baseURL).toBe('http://localhost:1234/v1');
    expect(withServer(draft, 'vllm').baseURL).toBe('http://localhost:8000/v1');
    const typed = { ...draft, baseURL: 'http://127.0.0.1:9999/v1' };
    expect(withServer(typed, 'llamacpp')).toEqual({ ...typed, server: 'llamacpp' });
  });

  it('gives the model to load, or why not: a URL off this machine, or no model id', () => {
    expect(
      localServerModel({ server: 'ollama', baseURL: ' http://localhost:11434/v1/ ', model: ' qwen2.5:14b ' }),
    ).toEqual({
      engine: 'local-server',
      baseURL: 'http://localhost:11434/v1',
      model: 'qwen2.5:14b',
      server: 'ollama',
    });
    expect(
      localServerModel({ server: 'ollama', baseURL: 'http://localhost.evil.com/v1', model: 'm' }),
    ).toMatch(/must run on this machine .* localhost\.evil\.com is not/);
    expect(localServerModel({ server: 'ollama', baseURL: 'http://localhost:11434/v1', model: '  ' })).toMatch(
      /Enter the model id/,
    );
  });

  it('fills itself again from a local server chosen before, and from nothing else', () => {
    expect(
      draftOf({ engine: 'local-server', baseURL: 'http://[::1]:8080/v1', model: 'x', server: 'llamacpp' }),
    ).toEqual({
      server: 'llamacpp',
      baseURL: 'http://[::1]:8080/v1',
      model: 'x',
    });
    expect(draftOf({ engine: 'webllm', modelId: 'Qwen3-4B-q4f16_1-MLC' })).toBeUndefined();
    expect(draftOf(undefined)).toBeUndefined();
  });

  it("says how to let this page call each server, with this page's origin", () => {
    expect(corsHintFor('ollama', 'https://baton.example')).toContain('OLLAMA_ORIGINS=https://baton.example');
    expect(corsHintFor('vllm', 'https://baton.example')).toContain('["https://baton.example"]');
    expect(corsHintFor('lmstudio', 'https://baton.example')).toMatch(/Enable CORS/);
    expect(corsHintFor('llamacpp', 'https://baton.example')).toMatch(/llama-server/);
  });

  it("notes Chrome's local-network-access prompt only for a public https page", () => {
    expect(needsLocalNetworkAccess('https://baton.example/#/start')).toBe(true);
    expect(needsLocalNetworkAccess('http://localhost:5173/#/start')).toBe(false);
    expect(needsLocalNetworkAccess('https://localhost:5173/')).toBe(false);
    expect(needsLocalNetworkAccess('http://127.0.0.1:4173/')).toBe(false);
  });

  it('shortens a long model list', () => {
    expect(shortList(['a', 'b'])).toBe('a, b');
    expect(shortList(['a', 'b', 'c', 'd'], 2)).toBe('a, b and 2 more');
  });
});
