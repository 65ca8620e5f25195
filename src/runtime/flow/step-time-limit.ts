import { StepTimeoutError } from '../../errors.js';
import type { Clock } from '../engine/clock.js';

/**
 * A step attempt's time limit on the run's clock: `signal` aborts when the attempt's own signal does
 * (the run stopped, with its reason) or when `timeoutMs` passes (a `step_timeout`); `race` settles the
 * attempt at that moment even if the body ignores its signal.
 */
export class StepTimeLimit {
  readonly #controller = new AbortController();
  readonly #handle: unknown;
  readonly #forward = () => this.#controller.abort(this.outer.reason);

  constructor(
    private readonly clock: Clock,
    private readonly outer: AbortSignal,
    step: string,
    timeoutMs: number,
  ) {
    outer.addEventListener('abort', this.#forward, { once: true });
    this.#handle = clock.setTimeout(
      () => this.#controller.abort(new StepTimeoutError(step, timeoutMs)),
      timeoutMs,
    );
  }

  /** The signal the step's body gets. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** `work`, or the abort's reason once the limit passes or the run stops, whichever comes first. */
  race<T>(work: T | Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    const aborted = new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    return Promise.race([Promise.resolve(work), aborted]);
  }

  /** Stops the timer and the forwarding: the attempt settled. */
  end(): void {
    this.clock.clearTimeout(this.#handle);
    this.outer.removeEventListener('abort', this.#forward);
  }
}
