import { afterEach, describe, expect, it } from 'vitest';
import {
  createSavedPrompts,
  matchingPrompts,
  PROMPT_TEXT_MAX,
  promptProblem,
  readSavedPrompts,
} from '../../../src/app/saved-prompts.ts';

const LIBRARY = [
  { id: '1', name: 'Summarise', text: 'Summarise this in three lines.' },
  { id: '2', name: 'Code review', text: 'Review this code.' },
  { id: '3', name: 'Plain summary for kids', text: 'Explain it to a child.' },
];

describe('the saved prompts `/` offers', () => {
  it('lists them all by name for a bare /', () => {
    expect(matchingPrompts(LIBRARY, '').map((p) => p.name)).toEqual([
      'Code review',
      'Plain summary for kids',
      'Summarise',
    ]);
  });

  it('filters by what follows the /, names that start with it first, in any case', () => {
    expect(matchingPrompts(LIBRARY, 'SUM').map((p) => p.id)).toEqual(['1', '3']);
    expect(matchingPrompts(LIBRARY, 'review').map((p) => p.id)).toEqual(['2']);
    expect(matchingPrompts(LIBRARY, 'nothing like it')).toEqual([]);
  });
});

describe('saving a prompt', () => {
  it('says what is wrong: no name, no text, too long, a name already used', () => {
    expect(promptProblem(LIBRARY, '  ', 'x')).toMatch(/Give the prompt a name/);
    expect(promptProblem(LIBRARY, 'New', '  ')).toMatch(/The prompt is empty/);
    expect(promptProblem(LIBRARY, 'New', 'x'.repeat(PROMPT_TEXT_MAX + 1))).toMatch(/keep it to 20,000/);
    expect(promptProblem(LIBRARY, 'code REVIEW', 'x')).toBe(
      'A prompt is already named “Code review”: pick another name, or delete that one first.',
    );
    expect(promptProblem(LIBRARY, 'New', 'x')).toBeUndefined();
  });

  it('reads a damaged library as what of it is prompts', () => {
    expect(readSavedPrompts('not json')).toEqual([]);
    expect(readSavedPrompts('{"a":1}')).toEqual([]);
    expect(readSavedPrompts(JSON.stringify([LIBRARY[0], { id: 2 }, null]))).toEqual([LIBRARY[0]]);
  });
});

describe('the library of an app state', () => {
  const had = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  afterEach(() => {
    if (had) Object.defineProperty(globalThis, 'localStorage', had);
    else Reflect.deleteProperty(globalThis, 'localStorage');
  });

  function storage(refuse = false) {
    const kept = new Map<string, string>();
    Object.defineProperty(globalThis, 'localStorage', {
      configurable: true,
      value: {
        getItem: (key: string) => kept.get(key) ?? null,
        setItem: (key: string, value: string) => {
          if (refuse) throw new DOMException('full', 'QuotaExceededError');
          kept.set(key, value);
        },
      },
    });
    return kept;
  }

  it('keeps a saved prompt for the next visit, and forgets a deleted one', () => {
    storage();
    const first = createSavedPrompts();
    expect(first.add('Summarise', 'Summarise this.')).toBeUndefined();
    expect(first.add('summarise', 'Again.')).toMatch(/already named/);
    const again = createSavedPrompts();
    expect(again.prompts.value.map((p) => p.name)).toEqual(['Summarise']);
    expect(again.remove(again.prompts.value[0]!.id)).toBeUndefined();
    expect(createSavedPrompts().prompts.value).toEqual([]);
  });

  it('says so when the browser will not store it, and keeps it for this visit', () => {
    storage(true);
    const library = createSavedPrompts();
    expect(library.add('Summarise', 'Summarise this.')).toMatch(/did not store it/);
    expect(library.prompts.value).toHaveLength(1);
  });
});
