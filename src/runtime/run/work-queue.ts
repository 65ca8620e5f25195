import { type HostTurn, hostTurn } from './host-turn.js';

/**
 * What a held write counts for in a slice: a store's commit (synchronous on SQLite) costs as much as
 * several operations, so a run that writes after each step yields every few steps.
 */
export const WRITE_OPERATIONS = 8;

/**
 * A FIFO of a run's scheduling work (starting, retrying and blocking node runs) that yields to the
 * macrotask queue once the turn's share of operations is spent ({@link HostTurn}: shared by every run
 * of the process, 16 operations per turn), so a run with an instant model or 10,000 ready tasks never
 * freezes its host, and neither do fifty runs at once: timers and I/O get their turn between slices. A held write counts for {@link WRITE_OPERATIONS} (a store's commit costs more
 * than a scheduling step). The slices are counted in operations, not milliseconds, so where a run
 * yields is the same on every replay and a scripted run stays reproducible.
 */
export class WorkQueue {
  readonly #items: (() => void)[] = [];
  #head = 0;
  #flushing = false;
  #resumeScheduled = false;
  /** Writes that must land before any further operation runs (see `hold`). */
  #held = 0;
  readonly #drained: (() => void)[] = [];

  /** @param turn the turn whose share the queue counts against (the process's, unless a test gives its own). */
  constructor(private readonly turn: HostTurn = hostTurn) {}

  /** Adds an operation, which counts for `operations` of the turn's share; it runs on the next `flush`. */
  push(operation: () => void, operations = 1): void {
    if (operations === 1) this.#items.push(operation);
    else
      this.#items.push(() => {
        this.turn.spend(operations - 1);
        operation();
      });
  }

  /** Drops every operation not yet run. */
  clear(): void {
    this.#items.length = 0;
    this.#head = 0;
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Resolves once every queued operation ran and no write holds the queue (at once when so). */
  whenDrained(): Promise<void> {
    if (this.#head >= this.#items.length && !this.#resumeScheduled && this.#held === 0)
      return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Runs nothing more until `write` settles (fulfilled or not), then goes on where it stopped: a run
   * whose task results must be stored before the tasks that read them start holds its queue on each
   * write. `write` must not reject (the caller records its failure).
   */
  hold(write: Promise<unknown>): void {
    this.#held += 1;
    this.turn.spend(WRITE_OPERATIONS);
    void write.then(() => {
      this.#held -= 1;
      if (this.#held === 0) this.flush();
    });
  }

  /**
   * Runs the queued operations in order, until the queue is empty or the turn's share is spent; then
   * it resumes in a later turn ({@link HostTurn.later}). Re-entrant calls, and calls while a resume is
   * scheduled, do nothing: order is kept.
   */
  flush(): void {
    if (this.#flushing || this.#resumeScheduled || this.#held > 0) return;
    this.#flushing = true;
    try {
      while (this.#head < this.#items.length) {
        // An operation that started a write holds the rest until it lands.
        if (this.#held > 0) return;
        if (this.turn.exhausted) {
          this.#scheduleResume();
          return;
        }
        const operation = this.#items[this.#head] as () => void;
        this.#head += 1;
        this.turn.spend(1);
        operation();
      }
      this.clear();
    } finally {
      this.#flushing = false;
    }
  }

  #scheduleResume(): void {
    this.#resumeScheduled = true;
    this.turn.later(() => {
      this.#resumeScheduled = false;
      this.flush();
    });
  }
}
