/** One commit waiting for its statement: the run it belongs to, what to send, how to answer. */
interface Waiting<C> {
  run: string;
  commit: C;
  resolve(held: boolean): void;
  reject(error: unknown): void;
}

/**
 * Sends the commits of many runs as few statements (group commit): a commit that comes while fewer
 * than `lanes` statements are in flight is sent at once; those that come while every lane is busy
 * wait and are sent together when a lane frees, at most `maxBatch` of them and at most one of each
 * run, never one of a run whose earlier commit is still in flight (so a run's commits land in
 * order). `send` answers each commit of a batch in order (whether its fence held); when it throws,
 * every commit of the batch rejects with that error and none is acknowledged.
 */
export class CommitBatcher<C> {
  readonly #send: (commits: C[]) => Promise<boolean[]>;
  readonly #maxBatch: number;
  readonly #lanes: number;
  readonly #queue: Waiting<C>[] = [];
  /** The runs with a commit in flight. */
  readonly #busy = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Lanes sending now: counted as a lane starts and ends, synchronously (not when its promise settles). */
  #running = 0;

  constructor(send: (commits: C[]) => Promise<boolean[]>, maxBatch: number, lanes = 1) {
    this.#send = send;
    this.#maxBatch = maxBatch;
    this.#lanes = lanes;
  }

  /** Queues `commit` of run `run`; resolves whether its fence held, once its statement has ended. */
  submit(run: string, commit: C): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ run, commit, resolve, reject });
      this.#start();
    });
  }

  /** Starts a lane when one is free and a commit waits. */
  #start(): void {
    if (this.#running >= this.#lanes) return;
    this.#running += 1;
    const lane: Promise<void> = this.#drain().finally(() => {
      this.#inFlight.delete(lane);
    });
    this.#inFlight.add(lane);
  }

  /** Resolves once every commit submitted so far has been answered. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** One lane: sends batches one after another until no commit it may send waits. */
  async #drain(): Promise<void> {
    try {
      for (let batch = this.#take(); batch.length > 0; batch = this.#take()) {
        await this.#flush(batch);
        for (const waiting of batch) this.#busy.delete(waiting.run);
        // A commit held back behind one of this batch's runs may go on another lane now.
        if (this.#queue.length > 0) this.#start();
      }
    } finally {
      // Ended before anything else runs: a commit submitted next finds the lane free.
      this.#running -= 1;
    }
  }

  /** The next batch: the oldest waiting commits, one per run, at most `maxBatch`. */
  #take(): Waiting<C>[] {
    const runs = new Set<string>();
    const batch: Waiting<C>[] = [];
    const left: Waiting<C>[] = [];
    for (const waiting of this.#queue) {
      if (batch.length < this.#maxBatch && !runs.has(waiting.run) && !this.#busy.has(waiting.run)) {
        runs.add(waiting.run);
        this.#busy.add(waiting.run);
        batch.push(waiting);
      } else left.push(waiting);
    }
    this.#queue.splice(0, this.#queue.length, ...left);
    return batch;
  }

  async #flush(batch: Waiting<C>[]): Promise<void> {
    try {
      const held = await this.#send(batch.map((waiting) => waiting.commit));
      batch.forEach((waiting, i) => {
        waiting.resolve(held[i] === true);
      });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
