/**
 * A run's sense of time: what timestamps and durations read, and what retry backoffs wait on. Inject
 * one to make a run's timing reproducible (see `createManualClock` in `statecrew/testing`).
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` once `ms` milliseconds of this clock have passed; returns a handle. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a pending `setTimeout` by its handle. */
  clearTimeout(handle: unknown): void;
}

/** What a `clock` option accepts: a full {@link Clock}, or just its `now` (timers then are the host's). */
export type ClockOption = Clock | (() => number);

/** The host's clock: `Date.now` and the global timers. */
export const systemClock: Clock = {
  now: Date.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The clock a run uses for `option`: the system clock when none is given. */
export function toClock(option: ClockOption | undefined): Clock {
  if (option === undefined) return systemClock;
  if (typeof option === 'function') return { ...systemClock, now: option };
  return option;
}
