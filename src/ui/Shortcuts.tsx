import { useEffect, useRef, useState } from 'preact/hooks';
import type { AppState } from '../app/app-state.ts';
import { isActive } from '../app/runs/run-model.ts';
import { useAppState } from './app-context.ts';
import { focusAfterStop, typing } from './key-targets.ts';

/** The page's shortcuts, as the sheet lists them (and the keys as `aria-keyshortcuts` names them). */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; what: string; either?: true }> = [
  { keys: ['Ctrl', 'K'], what: 'Search your threads' },
  { keys: ['Ctrl', 'Shift', 'O'], what: 'Start a new thread' },
  { keys: ['Esc'], what: 'Stop the run on screen (the steps done are kept)' },
  { keys: ['↑'], what: 'In an empty question box: put the last question back to edit' },
  { keys: ['/'], what: 'In an empty question box: insert a saved prompt (Settings → Saved prompts)' },
  { keys: ['Enter'], what: 'In the question box: ask (Shift+Enter adds a line)' },
  { keys: ['Ctrl', 'Enter'], what: 'In the Ask box: plan only, nothing sent' },
  { keys: ['g', 'b'], either: true, what: 'On a finished answer: mark it good or bad' },
  { keys: ['?'], what: 'Show these shortcuts' },
];

/** The thread search on screen: the thread list's (marked so), or History's. */
const SEARCH = '[data-shortcut="thread-search"], #history-search';

/** Focuses what `selector` finds once the screen just navigated to has drawn it (a few frames at most). */
function focusWhenShown(selector: string, frames = 60): void {
  const found = document.querySelector<HTMLElement>(selector);
  if (found) found.focus();
  else if (frames > 0) requestAnimationFrame(() => focusWhenShown(selector, frames - 1));
}

/** Whether the run on screen is live: on Ask, or on its own page. */
function liveRunOnScreen(app: AppState): boolean {
  const view = app.runs.currentRun.value;
  const route = app.router.route.value;
  if (!view || !isActive(view.phase)) return false;
  return route.name === 'ask' || (route.name === 'run' && route.id === view.id);
}

/** The page-wide keys; `openSheet` shows the shortcuts sheet. */
function onKey(app: AppState, event: KeyboardEvent, openSheet: () => void): void {
  if (event.defaultPrevented || event.isComposing) return;
  const ctrl = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  // A modal dialog (the unlock prompt, this sheet) owns the keys while it is open.
  if (document.querySelector('dialog[open]')) return;
  if (ctrl && !event.shiftKey && !event.altKey && key === 'k') {
    event.preventDefault();
    if (!document.querySelector(SEARCH)) app.router.navigate({ name: 'history' });
    focusWhenShown(SEARCH);
  } else if (ctrl && event.shiftKey && !event.altKey && key === 'o') {
    event.preventDefault();
    app.threads.newThread();
    app.router.navigate({ name: 'ask' });
    focusWhenShown('#question');
  } else if (event.key === 'Escape' && !ctrl && liveRunOnScreen(app)) {
    event.preventDefault();
    app.runs.cancelRun();
    focusAfterStop();
  } else if (event.key === '?' && !ctrl && !event.altKey && !typing(event.target)) {
    event.preventDefault();
    openSheet();
  }
}

/**
 * The page's keyboard shortcuts (Ctrl+K, Ctrl+Shift+O, Esc, `?`) and the sheet that lists them: a modal
 * dialog (focus moves into it, Esc or Close closes it, focus goes back where it was).
 */
export function Shortcuts() {
  const app = useAppState();
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey(app, event, () => setOpen(true));
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [app]);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      returnFocus.current = document.activeElement as HTMLElement | null;
      element.showModal();
    } else if (!open && element.open) element.close();
  }, [open]);

  return (
    <dialog
      ref={dialog}
      class="card shortcuts-sheet"
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-sheet"
      onClose={() => {
        setOpen(false);
        returnFocus.current?.focus?.();
        returnFocus.current = null;
      }}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table class="shortcuts">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">What they do</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.what}>
              <td>
                {shortcut.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 && (shortcut.either ? ' or ' : '+')}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{shortcut.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="small muted">On a Mac, ⌘ works where Ctrl is shown.</p>
      <form method="dialog" class="row">
        <button type="submit" class="primary" data-testid="shortcuts-close">
          Close
        </button>
      </form>
    </dialog>
  );
}
