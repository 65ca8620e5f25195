import { InvalidOptionError } from '../errors.js';
import type { BullWorkerTuning } from './bull-worker.js';

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

/** The tuning options of a worker, as `createWorker` takes them. */
export interface WorkerTuningOptions {
  concurrency?: number | undefined;
  lockDurationMs?: number | undefined;
  stalledIntervalMs?: number | undefined;
}

/** Checks the tuning options of `where` (`invalid_option` naming the first one wrong) and fills in defaults. */
export function resolveWorkerTuning(where: string, options: WorkerTuningOptions): BullWorkerTuning {
  return {
    concurrency: wholeAtLeast(where, 'concurrency', options.concurrency, 8, 1),
    lockDurationMs: wholeAtLeast(
      where,
      'lockDurationMs',
      options.lockDurationMs,
      DEFAULT_LOCK_DURATION_MS,
      MIN_LOCK_DURATION_MS,
    ),
    stalledIntervalMs: wholeAtLeast(
      where,
      'stalledIntervalMs',
      options.stalledIntervalMs,
      DEFAULT_STALLED_INTERVAL_MS,
      MIN_STALLED_INTERVAL_MS,
    ),
  };
}

/** `value`, or `fallback` when it is undefined; `invalid_option` unless it is a whole number ≥ `min`. */
function wholeAtLeast(where: string, option: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const unit = option.endsWith('Ms') ? ' of ms' : '';
    throw new InvalidOptionError(where, option, `a whole number${unit} ≥ ${min}`, value);
  }
  return value;
}
