import type { Store } from '../stores/store.js';
import type { LiveRuns } from './live-runs.js';

/** How often a run that runs elsewhere (a queue worker, another server) is looked up while waited for. */
const POLL_MS = 100;

/** The default and largest time `POST /runs/wait` waits for a run, in ms. */
export const WAIT_DEFAULT_MS = 30_000;
export const WAIT_MAX_MS = 300_000;

/**
 * Resolves once run `id` is no longer running (it settled or paused) or `ms` passed, whichever is
 * first: a run of this server by its end, any other by its head in the store. The run itself is
 * never touched: past the time it goes on.
 */
export async function waitForRun(store: Store, live: LiveRuns, id: string, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve();
    }, ms);
  });
  try {
    const here = live.get(id);
    if (here !== undefined) return await Promise.race([here.done, timeout]);
    while (!timedOut && (await store.readRun(id))?.status === 'running') {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, POLL_MS)), timeout]);
    }
  } finally {
    clearTimeout(timer);
  }
}
