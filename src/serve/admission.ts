/** The default bound on the runs a server starts and runs at once (`maxActiveRuns`). */
export const DEFAULT_MAX_ACTIVE_RUNS = 16;

/** How full a server's admission is: its bound, the runs it runs now, and the starts waiting. */
export interface AdmissionState {
  /** The most runs this server starts and runs at once. */
  maxActiveRuns: number;
  /** The runs started here that have not settled yet (at most `maxActiveRuns`). */
  active: number;
  /** The starts waiting for one of them to settle, admitted first come, first served. */
  queued: number;
}

/**
 * A bound on the runs a server starts and runs at once: a start beyond it waits, in order of
 * arrival, until a run settles. Once opened (the server closing) nothing waits any more: what waits
 * is let through at once, and so is everything after.
 */
export class Admission {
  readonly #max: number;
  #active = 0;
  #open = false;
  readonly #waiting: Array<() => void> = [];

  constructor(max: number) {
    this.#max = max;
  }

  /** Its bound, the active runs and the waiting starts now. */
  state(): AdmissionState {
    return { maxActiveRuns: this.#max, active: this.#active, queued: this.#waiting.length };
  }

  /**
   * Resolves once a run may start, holding one place: `release` (called once its run settled, or
   * when it never started) gives the place to the first start waiting.
   */
  async enter(): Promise<() => void> {
    if (this.#open || (this.#active < this.#max && this.#waiting.length === 0)) this.#active += 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leave();
    };
  }

  /** Lets every start through from now on (the server stops: each one is stopped as it starts). */
  open(): void {
    this.#open = true;
    for (const next of this.#waiting.splice(0)) {
      this.#active += 1;
      next();
    }
  }

  #leave(): void {
    const next = this.#waiting.shift();
    // The place passes straight to the first waiting start: `active` stays as it was.
    if (next === undefined) this.#active -= 1;
    else next();
  }
}
