import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { typing } from './key-targets.ts';

/** How close to the page's end still counts as at the end (a line of text, a rounding pixel). */
const AT_END_PX = 48;

function pageEnd(): number {
  return document.documentElement.scrollHeight - window.innerHeight;
}

/**
 * While a turn streams, the page keeps its newest text in view, as a chat does; once the user scrolls up to
 * read, it stays where they put it and offers "Jump to latest" (`away`). Back at the end, by the button or
 * by scrolling, it follows again. Growth is watched with a ResizeObserver on the conversation, at most once
 * a frame, so a long answer costs one scroll per frame, not one per token.
 */
export function useFollowLatest(
  content: RefObject<HTMLElement | null>,
  streaming: boolean,
): { away: boolean; jump: () => void } {
  const [away, setAway] = useState(false);
  const following = useRef(true);
  useEffect(() => {
    if (!streaming) {
      setAway(false);
      return;
    }
    // A new turn starts followed: the user just asked, and looks for the answer.
    following.current = true;
    setAway(false);
    // Whether the user moved the page since the last scroll: the page also moves by itself (following, the
    // browser's scroll anchoring when a card above changes height, a shorter page clamping it), and only the
    // user's own move up stops following.
    let byUser = false;
    const onWheel = (e: WheelEvent) => {
      if (e.deltaY < 0) byUser = true;
    };
    const onKey = (e: KeyboardEvent) => {
      if (['ArrowUp', 'PageUp', 'Home'].includes(e.key) && !typing(e.target)) byUser = true;
    };
    const onTouch = () => {
      byUser = true;
    };
    // The page's own scrollbar: a press on it targets the root element.
    const onPress = (e: MouseEvent) => {
      if (e.target === document.documentElement) byUser = true;
    };
    const onScroll = () => {
      if (pageEnd() - window.scrollY <= AT_END_PX) {
        following.current = true;
        setAway(false);
      } else if (byUser) {
        following.current = false;
        setAway(true);
      }
      byUser = false;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('wheel', onWheel, { passive: true });
    window.addEventListener('keydown', onKey);
    window.addEventListener('touchmove', onTouch, { passive: true });
    window.addEventListener('mousedown', onPress);
    const element = content.current;
    const observer =
      element && typeof ResizeObserver === 'function'
        ? new ResizeObserver(() => {
            if (following.current && pageEnd() - window.scrollY > 0) window.scrollTo({ top: pageEnd() });
          })
        : undefined;
    if (element) observer?.observe(element);
    return () => {
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('wheel', onWheel);
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('touchmove', onTouch);
      window.removeEventListener('mousedown', onPress);
      observer?.disconnect();
    };
  }, [streaming, content]);
  return {
    away,
    jump: () => {
      following.current = true;
      setAway(false);
      window.scrollTo({ top: pageEnd() });
    },
  };
}

/** Shown while a turn streams and the user has scrolled away from it. */
export function JumpToLatest({ onJump }: { onJump: () => void }) {
  return (
    <button type="button" class="jump-latest" onClick={onJump} data-testid="jump-latest">
      Jump to latest ↓
    </button>
  );
}
