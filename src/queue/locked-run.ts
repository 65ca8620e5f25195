import { setTimeout as sleep } from 'node:timers/promises';
import { isStatecrewError } from '../errors.js';
import { leaseIsLive, leaseRemainingMs } from '../runtime/durable/identity.js';
import type { Store } from '../stores/store.js';

/** How often a job looks again at a run another owner holds, at most, in ms. */
const LOCKED_POLL_MS = 1000;

const isLocked = (error: unknown) => isStatecrewError(error, 'run_locked');

/**
 * Resumes run `id` through `resume`; while another owner runs it (`run_locked` — a worker whose job
 * BullMQ took for stalled while it still runs, or a runner that recovered it), waits until its lease
 * is given up or runs out and resumes again, which returns the run's end without running anything
 * it finished. `stop` (the worker closing) ends the waiting with the `run_locked` it met.
 */
export async function resumeWhenFree<T>(
  resume: () => Promise<T>,
  store: Store | undefined,
  id: string,
  stop: AbortSignal,
): Promise<T> {
  for (;;) {
    try {
      return await resume();
    } catch (error) {
      if (!isLocked(error) || store === undefined || stop.aborted) throw error;
      if (!(await untilFree(store, id, stop))) throw error;
    }
  }
}

/** Resolves true once run `id` has no live owner, or false when `stop` aborted first. */
async function untilFree(store: Store, id: string, stop: AbortSignal): Promise<boolean> {
  for (;;) {
    const head = await store.readRun(id);
    const now = Date.now();
    const lease = head?.lease ?? null;
    if (lease === null || !leaseIsLive(lease, now)) return true;
    const expiresIn = leaseRemainingMs(lease, now);
    const waited = await sleep(Math.max(10, Math.min(LOCKED_POLL_MS, expiresIn)), true, {
      signal: stop,
    }).catch(() => false);
    if (!waited) return false;
  }
}
