import { signal } from '@preact/signals';
import { storedValue } from './local-store.ts';

/**
 * The user's saved prompts and instructions: a small library, kept in this browser, that `/` at the start
 * of an empty question box offers to insert (src/ui/PromptPicker.tsx), managed in Settings.
 */
export interface SavedPrompt {
  id: string;
  /** What the user calls it: what `/` filters on and the list shows. */
  name: string;
  text: string;
}

/** Longest name and text kept: a name is a handle, a text a prompt (instructions can be long). */
export const PROMPT_NAME_MAX = 80;
export const PROMPT_TEXT_MAX = 20_000;

const KEY = 'baton.savedPrompts';

/** The stored library; an entry that is not a prompt is left out, the rest kept. */
export function readSavedPrompts(raw: string | null): SavedPrompt[] {
  let parsed: unknown;
  try {
    parsed = raw ? JSON.parse(raw) : [];
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (p): p is SavedPrompt =>
      typeof p === 'object' &&
      p !== null &&
      typeof (p as SavedPrompt).id === 'string' &&
      typeof (p as SavedPrompt).name === 'string' &&
      typeof (p as SavedPrompt).text === 'string',
  );
}

/**
 * The prompts whose name holds what was typed after `/` (any case), those whose name starts with it
 * first, then the library's order (its names sorted).
 */
export function matchingPrompts(prompts: readonly SavedPrompt[], typed: string): SavedPrompt[] {
  const query = typed.trim().toLowerCase();
  const sorted = [...prompts].sort((a, b) => a.name.localeCompare(b.name));
  if (!query) return sorted;
  const named = sorted.filter((p) => p.name.toLowerCase().includes(query));
  return [
    ...named.filter((p) => p.name.toLowerCase().startsWith(query)),
    ...named.filter((p) => !p.name.toLowerCase().startsWith(query)),
  ];
}

/** Why a prompt cannot be saved under `name` with `text`, or undefined when it can. */
export function promptProblem(
  prompts: readonly SavedPrompt[],
  name: string,
  text: string,
  editing?: string,
): string | undefined {
  const n = name.trim();
  if (!n) return 'Give the prompt a name: typing / and part of it finds it.';
  if (n.length > PROMPT_NAME_MAX)
    return `The name is ${n.length} characters long: keep it to ${PROMPT_NAME_MAX}.`;
  if (!text.trim()) return 'The prompt is empty: write the text it inserts.';
  if (text.length > PROMPT_TEXT_MAX)
    return `The prompt is ${text.length.toLocaleString('en')} characters long: keep it to ${PROMPT_TEXT_MAX.toLocaleString('en')}.`;
  const same = prompts.find((p) => p.id !== editing && p.name.trim().toLowerCase() === n.toLowerCase());
  if (same) return `A prompt is already named “${same.name}”: pick another name, or delete that one first.`;
  return undefined;
}

export function createSavedPrompts() {
  const stored = storedValue(KEY, readSavedPrompts);
  const prompts = signal<SavedPrompt[]>(stored.read());

  /** Writes the library and reads it back: storage that refused it is said, not passed over. */
  function keep(next: SavedPrompt[]): string | undefined {
    prompts.value = next;
    stored.write(next);
    const back = stored.read();
    if (back.length !== next.length || back.some((p, i) => p.id !== next[i]?.id))
      return 'This browser did not store it (its storage is full or blocked): it is kept only until you leave this page.';
    return undefined;
  }

  /** Saves a new prompt; the problem, if it cannot (nothing is changed then). */
  function add(name: string, text: string): string | undefined {
    const problem = promptProblem(prompts.value, name, text);
    if (problem) return problem;
    return keep([...prompts.value, { id: crypto.randomUUID(), name: name.trim(), text }]);
  }

  function remove(id: string): string | undefined {
    return keep(prompts.value.filter((p) => p.id !== id));
  }

  return { prompts, add, remove };
}

export type SavedPrompts = ReturnType<typeof createSavedPrompts>;
