/** Whether a key pressed on `target` is typing into a field (its letters are text, not shortcuts). */
export function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/** ↑ in an empty question box, with no modifier: put the last question back for editing. */
export function recallKey(event: KeyboardEvent, text: string): boolean {
  return (
    event.key === 'ArrowUp' &&
    text === '' &&
    !event.isComposing &&
    !event.shiftKey &&
    !event.ctrlKey &&
    !event.metaKey &&
    !event.altKey
  );
}

/**
 * Where focus goes once a run is stopped (its Stop button disappears with it, and focus would fall to the
 * body): the question box, where a keyboard user goes next; without one (a run opened from History),
 * `fallback` (the run's own heading).
 */
export function focusAfterStop(fallback?: HTMLElement | null): void {
  const question = document.getElementById('question');
  (question ?? fallback ?? document.getElementById('run-title'))?.focus();
}
