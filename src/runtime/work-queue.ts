/** Operations run between two yields to the event loop. */
export const OPERATIONS_PER_SLICE = 32;

let configuredPerSlice = OPERATIONS_PER_SLICE;

/** Sets the slice of the queues created from now on (benchmarks measure the cost of yielding with it). */
export function setOperationsPerSlice(operations: number): void {
  configuredPerSlice = operations;
}

/**
 * A FIFO of a run's scheduling work (starting, retrying and blocking node runs) that yields to the
 * macrotask queue after every {@link OPERATIONS_PER_SLICE} operations, so a run with an instant model
 * or 10,000 ready tasks never freezes its host: timers and I/O get their turn between slices. The
 * slices are counted in operations, not milliseconds, so where a run yields is the same on every
 * replay and a scripted run stays reproducible.
 */
export class WorkQueue {
  readonly #items: (() => void)[] = [];
  #head = 0;
  #sinceYield = 0;
  #flushing = false;
  #resumeScheduled = false;
  readonly #drained: (() => void)[] = [];

  constructor(private readonly perSlice = configuredPerSlice) {}

  /** Adds an operation; it runs on the next `flush`. */
  push(operation: () => void): void {
    this.#items.push(operation);
  }

  /** Drops every operation not yet run. */
  clear(): void {
    this.#items.length = 0;
    this.#head = 0;
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Resolves once every queued operation ran (at once when none is queued). */
  whenDrained(): Promise<void> {
    if (this.#head >= this.#items.length && !this.#resumeScheduled) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Runs the queued operations in order, until the queue is empty or the slice is spent; then it
   * resumes from a macrotask (`setImmediate`). Re-entrant calls, and calls while a resume is
   * scheduled, do nothing: order is kept.
   */
  flush(): void {
    if (this.#flushing || this.#resumeScheduled) return;
    this.#flushing = true;
    try {
      while (this.#head < this.#items.length) {
        if (this.#sinceYield >= this.perSlice) {
          this.#scheduleResume();
          return;
        }
        const operation = this.#items[this.#head] as () => void;
        this.#head += 1;
        this.#sinceYield += 1;
        operation();
      }
      this.clear();
    } finally {
      this.#flushing = false;
    }
  }

  #scheduleResume(): void {
    this.#resumeScheduled = true;
    setImmediate(() => {
      this.#resumeScheduled = false;
      this.#sinceYield = 0;
      this.flush();
    });
  }
}
