import type { Clock } from './clock.js';

/** A {@link Clock} whose time moves only when a test says so. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due, in order of due time. */
  advance(ms: number): void;
  /** Timers scheduled and not yet fired or cleared. */
  readonly pending: number;
  /** Resolves once at least one timer is pending (at once if one already is). */
  whenTimer(): Promise<void>;
}

interface Timer {
  id: number;
  due: number;
  callback: () => void;
}

/**
 * A clock for tests: `now()` reads the manual time (starting at `start`), timers fire only when
 * `advance` passes their due time, so retry backoffs are tested without sleeping.
 *
 * @example
 * const clock = createManualClock();
 * const run = crew.run({ clock });
 * await clock.whenTimer(); // the first retry's backoff is scheduled
 * clock.advance(500);
 */
export function createManualClock(start = 1_700_000_000_000): ManualClock {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, Timer>();
  const waiters: (() => void)[] = [];
  return {
    now: () => now,
    setTimeout(callback, ms) {
      nextId += 1;
      timers.set(nextId, { id: nextId, due: now + Math.max(0, ms), callback });
      for (const wake of waiters.splice(0)) wake();
      return nextId;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.values()]
          .filter((t) => t.due <= until)
          .sort((a, b) => a.due - b.due || a.id - b.id);
        const first = due[0];
        if (first === undefined) break;
        timers.delete(first.id);
        now = Math.max(now, first.due);
        first.callback();
      }
      now = until;
    },
    get pending() {
      return timers.size;
    },
    whenTimer() {
      if (timers.size > 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
