/** Operations all of this process's runs may run in one turn of the event loop. */
export const OPERATIONS_PER_TURN = 16;

/** What starting a run counts for: it builds its supervisor, its records and its first work. */
export const RUN_START_OPERATIONS = 8;

/**
 * The share of one turn of the host's event loop that statecrew's work may take, counted in
 * operations (not milliseconds, so where a run yields is the same on every replay). Every run's work
 * queue counts what it runs here, and every kickoff what starting costs: once the share is spent,
 * work waits for a later turn, in the order it came. So fifty runs at once hold the host for about as
 * long per turn as one, instead of fifty times as long. A new turn begins at the next `setImmediate`
 * after work was counted; the work waiting then runs first, while the new share lasts.
 */
export class HostTurn {
  #spent = 0;
  #nextScheduled = false;
  readonly #waiting: (() => void)[] = [];
  #head = 0;

  /** @param share operations per turn (`Infinity`: never wait). */
  constructor(private share: number = OPERATIONS_PER_TURN) {}

  /** Whether this turn's share is spent: new work should wait for {@link later}. */
  get exhausted(): boolean {
    return this.#spent >= this.share;
  }

  /** Counts `operations` against this turn's share. */
  spend(operations: number): void {
    this.#spent += operations;
    if (!this.#nextScheduled) this.#scheduleNext();
  }

  /** Runs `work` in a later turn, after the work that waited before it, once that turn has room. */
  later(work: () => void): void {
    this.#waiting.push(work);
    if (!this.#nextScheduled) this.#scheduleNext();
  }

  /**
   * Calls `start` now when this turn has room, else in the first later turn with room; a `start` that
   * throws rejects the promise it returns. For a kickoff: fifty started in one call of the host start
   * a few per turn.
   */
  whenRoom<T>(start: () => Promise<T>): Promise<T> {
    if (!this.exhausted) {
      try {
        return start();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.later(() => {
        try {
          resolve(start());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Changes the share, from now on (benchmarks measure what yielding costs with it). */
  setShare(operations: number): void {
    this.share = operations;
  }

  #scheduleNext(): void {
    this.#nextScheduled = true;
    setImmediate(this.#beginTurn);
  }

  readonly #beginTurn = (): void => {
    this.#nextScheduled = false;
    this.#spent = 0;
    try {
      while (this.#head < this.#waiting.length && !this.exhausted) {
        const work = this.#waiting[this.#head] as () => void;
        this.#head += 1;
        work();
      }
    } finally {
      this.#compact();
      if (this.#head < this.#waiting.length && !this.#nextScheduled) this.#scheduleNext();
    }
  };

  #compact(): void {
    if (this.#head === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

/** The turn every run of this process shares. */
export const hostTurn = new HostTurn();
