import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * The keyboard of a confirm that guards something hard to undo (a spend, a tool call, files or a key sent):
 * focus starts on its safe answer and Escape declines, so a stray Enter never does the risky thing. Focus
 * moves in the render that shows the confirm (a layout effect), not a frame later: a key pressed as it
 * appears acts on it, not on what is behind it.
 *
 * `shown` is what the confirm asks about: a new one takes the focus again. Put `safe` on the safe answer's
 * button and `onKeyDown` on the confirm's box.
 */
export function useConfirmKeys(shown: unknown, decline: () => void) {
  const safe = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    safe.current?.focus();
  }, [shown]);
  return {
    safe,
    onKeyDown(e: KeyboardEvent): void {
      if (e.key === 'Escape') {
        e.preventDefault();
        decline();
      }
    },
  };
}
