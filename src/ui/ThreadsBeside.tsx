import { useEffect, useRef, useState } from 'preact/hooks';
import { ThreadList } from './ThreadList.tsx';

/** Where the thread list sits beside the conversation rather than in a drawer (styles.css says the same). */
const WIDE = '(min-width: 62.5rem)';

/** Whether the window is wide enough for the list beside the conversation; follows a resize. */
function useWide(): boolean {
  const [wide, setWide] = useState(() => matchMedia(WIDE).matches);
  useEffect(() => {
    const query = matchMedia(WIDE);
    const changed = () => setWide(query.matches);
    query.addEventListener('change', changed);
    changed();
    return () => query.removeEventListener('change', changed);
  }, []);
  return wide;
}

/**
 * The threads in a drawer, for a narrow window: a modal dialog (focus moves into it and cannot leave it,
 * Esc or Close closes it, and the focus goes back to the button that opened it).
 */
function ThreadDrawer() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    else if (!open && element.open) element.close();
  }, [open]);
  return (
    <>
      <button
        type="button"
        class="small thread-drawer-button"
        ref={opener}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(true)}
        data-testid="threads-drawer-open"
      >
        Threads
      </button>
      <dialog
        ref={dialog}
        class="thread-drawer"
        aria-labelledby="threads-drawer-title"
        data-testid="threads-drawer"
        onClose={() => {
          setOpen(false);
          opener.current?.focus();
        }}
      >
        {open && <ThreadList idPrefix="threads-drawer" onDone={() => setOpen(false)} />}
        <form method="dialog" class="row">
          <button type="submit" data-testid="threads-drawer-close">
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}

/** The thread list beside the conversation on a wide window, behind a Threads button on a narrow one. */
export function ThreadsBeside() {
  const wide = useWide();
  return wide ? (
    <aside class="thread-aside" aria-labelledby="threads-aside-title" data-testid="threads-aside">
      <ThreadList idPrefix="threads-aside" />
    </aside>
  ) : (
    <ThreadDrawer />
  );
}
