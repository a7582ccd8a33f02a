import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { typing } from './key-targets.ts';

/** Room left under the newest text when following it (a line, so the last words are not on the edge). */
const MARGIN_PX = 24;

/**
 * How far below the window's bottom the newest streaming text ends (0 or less: in view; undefined: nothing
 * streams now). Parallel steps stream at once: the lowest on the page is the newest place to read.
 */
function newestBelow(content: HTMLElement | null): number | undefined {
  let bottom: number | undefined;
  for (const element of content?.querySelectorAll('[data-streaming="true"]') ?? []) {
    const end = element.getBoundingClientRect().bottom;
    bottom = bottom === undefined ? end : Math.max(bottom, end);
  }
  return bottom === undefined ? undefined : bottom - window.innerHeight;
}

/**
 * While a turn streams, the page keeps its newest text in view, as a chat does: it scrolls only when that
 * text would go below the window, so a short answer under a turn just scrolled to moves nothing. Once the
 * user scrolls up to read, it stays where they put it and offers "Jump to latest" (`away`); back at the
 * newest text, by the button or by scrolling, it follows again. Growth is watched with a ResizeObserver on the conversation, at most once
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
      const below = newestBelow(content.current);
      if (below === undefined || below <= MARGIN_PX) {
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
            const below = newestBelow(element);
            if (following.current && below !== undefined && below > 0)
              window.scrollBy({ top: below + MARGIN_PX });
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
      const below = newestBelow(content.current);
      if (below !== undefined && below > 0) window.scrollBy({ top: below + MARGIN_PX });
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
