import type { JobsOptions, Queue } from 'bullmq';

/** One job waiting to be added, and how its add ends. */
interface PendingAdd {
  name: string;
  data: unknown;
  opts: JobsOptions;
  resolve(): void;
  reject(error: unknown): void;
}

/** The most jobs one `addBulk` adds; more asked in one turn go in several. */
const MOST_PER_BATCH = 500;

/**
 * Adds jobs to `queue` in batches: the adds asked within one turn of the event loop go as one
 * `addBulk` (one pipelined write and one round trip to Redis) rather than a round trip each (a turn
 * of one add sends it with `add`, the same single round trip without a pipeline to build). An add
 * settles with its batch: a batch Redis refused rejects every add in it with Redis's error.
 */
export class AddBatch {
  #pending: PendingAdd[] = [];

  constructor(readonly queue: Queue) {}

  /** Adds job `name` with `data` and `opts` in the next batch; resolves once it is on the queue. */
  add(name: string, data: unknown, opts: JobsOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#pending.length === 0) setImmediate(() => this.#flush());
      this.#pending.push({ name, data, opts, resolve, reject });
      if (this.#pending.length >= MOST_PER_BATCH) this.#flush();
    });
  }

  /**
   * Takes job `jobId` out of the next batch if it waits there (it never reaches the queue, and its add
   * resolves); false when it is not waiting (already sent, or never asked).
   */
  drop(jobId: string): boolean {
    const at = this.#pending.findIndex((add) => add.opts.jobId === jobId);
    if (at === -1) return false;
    const [dropped] = this.#pending.splice(at, 1);
    dropped?.resolve();
    return true;
  }

  #flush(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    // One job goes as a plain add: a pipeline (which addBulk makes) costs more to build than it saves.
    const only = batch.length === 1 ? batch[0] : undefined;
    const sent =
      only === undefined
        ? this.queue.addBulk(batch.map(({ name, data, opts }) => ({ name, data, opts })))
        : this.queue.add(only.name, only.data, only.opts);
    sent.then(
      () => {
        for (const add of batch) add.resolve();
      },
      (error: unknown) => {
        for (const add of batch) add.reject(error);
      },
    );
  }
}
