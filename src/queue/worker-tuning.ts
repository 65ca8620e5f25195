import type { z } from 'zod';
import { option } from '../options/option.js';

/**
 * A job's lock, in ms, unless the worker's options say otherwise (BullMQ's own default is 30 s). Agent
 * calls wait on the network, and BullMQ renews the lock of a job in flight, so a short lock costs them
 * nothing and hands a killed worker's jobs to the others sooner.
 */
export const DEFAULT_LOCK_DURATION_MS = 5_000;
/** How often stalled jobs are looked for, in ms, unless the options say otherwise (BullMQ's: 30 s). */
export const DEFAULT_STALLED_INTERVAL_MS = 2_000;
/** The shortest lock a worker takes: a shorter one is lost to a garbage collection or a busy moment. */
export const MIN_LOCK_DURATION_MS = 1_000;
/** The shortest interval between two looks for stalled jobs (each look is a script over the active jobs). */
export const MIN_STALLED_INTERVAL_MS = 100;

/** A whole number ≥ `min` (of ms, for a duration `unit`). */
export function wholeAtLeast(min: number, unit = ''): z.ZodCustom<number, number> {
  return option<number>(
    `a whole number${unit} ≥ ${min}`,
    (n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= min,
  );
}
