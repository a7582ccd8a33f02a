import { describe, expect, it } from 'vitest';
import { modelKey } from '../../../src/app/conductor-options.ts';
import {
  CUSTOM_MODEL,
  LOCAL_SERVER,
  type ModelPick,
  pickedKey,
  pickedModel,
  startPick,
} from '../../../src/app/conductor-pick.ts';
import { defaultDraft } from '../../../src/app/local-server-draft.ts';
import type { ModelRef } from '../../../src/shared/model.ts';
import type { ConductorChoice } from '../../../src/shared/model-choice.ts';

const gpu: ModelRef = { engine: 'webllm', modelId: 'Qwen3-1.7B-q4f32_1-MLC' };
const smaller: ModelRef = { engine: 'webllm', modelId: 'Qwen3-0.6B-q4f32_1-MLC' };
const models = [gpu, smaller];
const choice: ConductorChoice = {
  model: gpu,
  reason: 'test',
  alternatives: [smaller],
  byHand: [],
  softwareAdapter: false,
  budgetMB: 4096,
};

const pick = (key: string, fields: Partial<ModelPick> = {}): ModelPick => ({
  key,
  customUrl: '',
  customLib: '',
  server: defaultDraft(),
  ...fields,
});

describe('the Start screen’s pick of a conductor model', () => {
  it('is the recommendation until the user picks, or the local server when one is loaded', () => {
    expect(pickedKey('', undefined, choice)).toBe(modelKey(gpu));
    expect(pickedKey('', undefined, undefined)).toBe('');
    const server: ModelRef = { engine: 'local-server', baseURL: 'http://localhost:11434/v1', model: 'qwen' };
    expect(pickedKey('', server, choice)).toBe(LOCAL_SERVER);
    expect(pickedKey(modelKey(smaller), server, choice)).toBe(modelKey(smaller));
  });

  it('loads a listed model, and asks before unloading another one', () => {
    expect(pickedModel(pick(modelKey(smaller)), models)).toEqual(smaller);
    expect(startPick(pick(modelKey(smaller)), models, undefined)).toEqual({ load: smaller });
    expect(startPick(pick(modelKey(smaller)), models, gpu)).toEqual({ switchTo: smaller });
    expect(startPick(pick(modelKey(gpu)), models, gpu)).toEqual({ load: gpu });
  });

  it('says what is wrong with a custom URL under its field, and names no model for it', () => {
    const typed = pick(CUSTOM_MODEL, { customUrl: 'not a url' });
    expect(pickedModel(typed, models)).toBeUndefined();
    expect(startPick(typed, models, undefined)).toEqual({
      refused: 'custom',
      message: 'Enter an absolute URL (https://…).',
    });
    const gguf = pick(CUSTOM_MODEL, { customUrl: 'https://example.test/m.gguf' });
    expect(startPick(gguf, models, undefined)).toMatchObject({ load: { engine: 'wllama' } });
  });

  it('sends the focus to a refused server URL, and says a missing model id under the server’s form', () => {
    const remote = pick(LOCAL_SERVER, { server: { ...defaultDraft(), baseURL: 'https://example.com/v1' } });
    expect(startPick(remote, models, undefined)).toEqual({ refused: 'server-url' });
    const noModel = pick(LOCAL_SERVER);
    expect(startPick(noModel, models, undefined)).toMatchObject({ refused: 'server' });
    const server = pick(LOCAL_SERVER, { server: { ...defaultDraft(), model: 'qwen2.5:14b' } });
    expect(startPick(server, models, gpu)).toMatchObject({
      switchTo: { engine: 'local-server', model: 'qwen2.5:14b' },
    });
  });
});
