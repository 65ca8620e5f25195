import { InvalidOptionError } from '../../errors.js';

/** Marks a {@link GracefulStop}, so two copies of the package loaded in one process know each other's. */
const GRACEFUL_STOP = Symbol.for('statecrew.GracefulStop');

/** How long a graceful stop lets its runs reach their next commit, in ms, unless told otherwise. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/**
 * A graceful stop of the runs a process holds (a server, a worker or a runner closing; SIGTERM): the
 * reason a run's `signal` aborts with to have it suspended rather than aborted. Such a run starts no
 * further node; the nodes in flight may settle and their commits land until the grace period ends;
 * then it gives its lease up with its head left `running`, so any runner resumes it from its last
 * commit (`run.suspended`; the result rejects with `RunSuspendedError`, `suspended`). A node still in
 * flight when the grace ends is abandoned: it runs again on resume. The grace is counted once, from
 * the stop's creation, for every run it stops; `now()` ends it at once (a second SIGTERM), and
 * clears its timer once the runs settled.
 *
 * @example
 * controller.abort(new GracefulStop(5_000)); // the run's `signal` came from `controller`
 */
export class GracefulStop extends Error {
  /** The grace period, in ms. */
  readonly graceMs: number;
  /** Resolves once the grace period is over (or `now()` cut it short). */
  readonly expired: Promise<void>;
  readonly [GRACEFUL_STOP] = true;
  #end: () => void = () => {};
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(graceMs: number = DEFAULT_SHUTDOWN_GRACE_MS, why = 'the process is stopping') {
    checkGraceMs('GracefulStop', 'graceMs', graceMs);
    super(why);
    this.name = 'GracefulStop';
    this.graceMs = graceMs;
    this.expired = new Promise<void>((resolve) => {
      this.#end = resolve;
    });
    // Kept alive until then: a run may wait for an attempt that holds nothing of the event loop.
    this.#timer = setTimeout(() => this.now(), graceMs);
  }

  /**
   * Ends the grace period at once: the nodes still in flight are abandoned. Whoever made the stop
   * calls it once its runs settled, so the grace's timer holds the process no longer.
   */
  now(): void {
    clearTimeout(this.#timer);
    this.#end();
  }
}

/** Whether `value` is a {@link GracefulStop}: a signal's reason that asks for a suspension. */
export function isGracefulStop(value: unknown): value is GracefulStop {
  return typeof value === 'object' && value !== null && GRACEFUL_STOP in value;
}

/** Refuses a grace period that is not a whole number of ms from 0 (`invalid_option` naming `option`). */
export function checkGraceMs(where: string, option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 2_147_483_647)
    throw new InvalidOptionError(where, option, 'a whole number of ms from 0', value);
  return value;
}
