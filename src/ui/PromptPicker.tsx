import type { RefObject } from 'preact';
import { useState } from 'preact/hooks';
import { matchingPrompts, type SavedPrompt } from '../app/saved-prompts.ts';
import { useAppState } from './app-context.ts';

const NONE: readonly SavedPrompt[] = [];

/**
 * `/` typed into an empty question box lists the saved prompts under it (the ARIA combobox pattern: the
 * box is the combobox, the list its listbox, the highlighted option its active descendant): what follows
 * the `/` filters them by name, ↑ and ↓ move, Enter or a click puts the prompt's text in the box, Esc
 * closes the list and leaves what was typed. With no saved prompt, `/` is only a character.
 */
export function usePromptPicker(
  id: string,
  value: string,
  setValue: (text: string) => void,
  box: RefObject<HTMLTextAreaElement | null>,
  enabled = true,
) {
  const { prompts } = useAppState().savedPrompts;
  const library = enabled ? prompts.value : NONE;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const typed = open && value.startsWith('/') && !value.includes('\n') ? value.slice(1) : undefined;
  const shown = typed === undefined ? [] : matchingPrompts(library, typed);
  const expanded = shown.length > 0;
  const at = Math.min(active, shown.length - 1);
  const listId = `${id}-prompts`;
  const optionId = (i: number) => `${id}-prompt-${i}`;

  const insert = (prompt: SavedPrompt) => {
    setOpen(false);
    setValue(prompt.text);
    const element = box.current;
    element?.focus();
    requestAnimationFrame(() => element?.setSelectionRange(prompt.text.length, prompt.text.length));
  };

  /** The box's new text: a `/` into an empty box opens the list, a box that no longer starts with one closes it. */
  const onInput = (next: string) => {
    if (value === '' && next === '/' && library.length > 0) {
      setOpen(true);
      setActive(0);
    } else if (!next.startsWith('/')) setOpen(false);
  };

  /** The list's keys; true when the key was the list's (the box does nothing more with it). */
  const onKeyDown = (event: KeyboardEvent): boolean => {
    if (!expanded || event.isComposing) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((at + step + shown.length) % shown.length);
    } else if (event.key === 'Enter' && !event.shiftKey) {
      const chosen = shown[at];
      if (chosen) insert(chosen);
    } else if (event.key === 'Escape') {
      setOpen(false);
    } else return false;
    // Esc here closes the list, not the run on screen (Shortcuts.tsx leaves a handled key alone).
    event.preventDefault();
    return true;
  };

  const comboProps =
    library.length > 0
      ? {
          // Preact types a textarea's role as textbox only; the combobox pattern makes the box a combobox.
          role: 'combobox' as 'textbox',
          'aria-expanded': expanded,
          'aria-controls': listId,
          'aria-autocomplete': 'list' as const,
          'aria-activedescendant': expanded ? optionId(at) : undefined,
        }
      : {};

  const popup =
    library.length === 0 ? null : (
      <>
        <div
          id={listId}
          role="listbox"
          aria-label="Saved prompts"
          class="prompt-popup"
          hidden={!expanded}
          data-testid="prompt-popup"
        >
          {shown.map((prompt, i) => (
            // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: the combobox pattern keeps the focus in the box, whose keys move through the options (aria-activedescendant)
            <div
              key={prompt.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === at}
              // The box keeps the focus: a click picks without taking it.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => insert(prompt)}
              data-testid="prompt-option"
            >
              <strong>{prompt.name}</strong>
              <span class="small muted"> {prompt.text.slice(0, 80)}</span>
            </div>
          ))}
        </div>
        {typed !== undefined && typed.trim() !== '' && !expanded && (
          <p class="small muted" role="status" data-testid="prompt-none">
            No saved prompt is named like “{typed.trim().slice(0, 40)}”.
          </p>
        )}
      </>
    );

  return { comboProps, popup, onInput, onKeyDown };
}
