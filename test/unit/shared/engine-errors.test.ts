import { describe, expect, it } from 'vitest';
import { EngineError, engineErrorWords, unreadableText } from '../../../src/shared/engine-errors.ts';

// An engine's failure is read in words, never in llama.cpp's own.
describe('engineErrorWords', () => {
  const crossed = (name: string, message: string) => Object.assign(new Error(message), { name });

  it('says a text the model cannot tokenize could not be read, and what to do', () => {
    const words = engineErrorWords(
      crossed('EngineFailure', 'llama.cpp failed: Failed to format input: unordered_map::at: key not found'),
    );
    expect(words).toMatch(/^The on-device model could not read the text it was given: .* Choose another/);
    expect(words).not.toMatch(/llama|unordered_map|format input/);
    expect(unreadableText('Failed to apply the chat template')).toBe(true);
    expect(unreadableText('out of memory')).toBe(false);
  });

  it('names every engine failure by what failed and what to do, without the engine’s message', () => {
    for (const name of ['DeviceLostError', 'OutOfMemoryError', 'ServerUnreachableError', 'ThreadCrashed']) {
      const words = engineErrorWords(crossed(name, 'llama.cpp: ggml_abort at ggml.c:1234'));
      expect(words, name).toMatch(/^(The|No|This) .*\. .*(Try again|on Start|then try again)\.$/);
      expect(words, name).not.toContain('ggml');
    }
    expect(engineErrorWords(new EngineError('EngineFailure', 'llama.cpp failed: decode -3'))).toBe(
      'The on-device model stopped with an error. Try again; if it fails again, reload the page or choose another model on Start.',
    );
  });

  it('leaves errors that are not an engine’s alone', () => {
    expect(engineErrorWords(new Error('something else'))).toBeUndefined();
    expect(engineErrorWords(crossed('ProviderError', 'HTTP 500'))).toBeUndefined();
    expect(engineErrorWords('a string')).toBeUndefined();
  });
});
