/**
 * A step's time limit as a clock that stands still while the step waits for the person: the limit is for
 * the provider and the tool servers (a stuck request, a model looping slowly), and a user who reads a tool
 * call's arguments before saying yes is neither. Calls are made one after another, but the hold counts, so
 * two overlapping waits still stop it once and start it once.
 */
import type { UserWait } from '../providers/tool-use.ts';

export interface StepClock {
  /** Runs `asking` off the clock. */
  offClock: UserWait;
  /** The step ended: the clock never fires, even if a wait ends later. */
  stop(): void;
}

export function startStepClock(limitMs: number, expire: () => void): StepClock {
  let remaining = limitMs;
  let since = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(expire, limitMs);
  let holds = 0;
  let stopped = false;
  const hold = () => {
    if (holds++ > 0 || stopped) return;
    clearTimeout(timer);
    timer = undefined;
    remaining -= performance.now() - since;
  };
  const release = () => {
    if (--holds > 0 || stopped) return;
    since = performance.now();
    timer = setTimeout(expire, Math.max(0, remaining));
  };
  return {
    async offClock(asking) {
      hold();
      try {
        return await asking();
      } finally {
        release();
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
