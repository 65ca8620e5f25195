/** One commit waiting for its statement: the run it belongs to, what to send, how to answer. */
interface Waiting<C> {
  run: string;
  commit: C;
  resolve(held: boolean): void;
  reject(error: unknown): void;
}

/**
 * Sends the commits of many runs as few statements (group commit): a commit that comes while no
 * statement is in flight is sent at once, alone; those that come while one is in flight wait and
 * are sent together when it ends, at most `maxBatch` of them and at most one of each run (a run's
 * later commit waits for the next statement, so it never lands before its earlier one). `send`
 * answers each commit of a batch in order (whether its fence held); when it throws, every commit of
 * the batch rejects with that error and none is acknowledged.
 */
export class CommitBatcher<C> {
  readonly #send: (commits: C[]) => Promise<boolean[]>;
  readonly #maxBatch: number;
  readonly #queue: Waiting<C>[] = [];
  #inFlight: Promise<void> | undefined;

  constructor(send: (commits: C[]) => Promise<boolean[]>, maxBatch: number) {
    this.#send = send;
    this.#maxBatch = maxBatch;
  }

  /** Queues `commit` of run `run`; resolves whether its fence held, once its statement has ended. */
  submit(run: string, commit: C): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ run, commit, resolve, reject });
      if (this.#inFlight === undefined) this.#inFlight = this.#drain();
    });
  }

  /** Resolves once every commit submitted so far has been answered. */
  async settled(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
  }

  /** Sends batches one after another until the queue is empty. */
  async #drain(): Promise<void> {
    try {
      for (let batch = this.#take(); batch.length > 0; batch = this.#take()) await this.#flush(batch);
    } finally {
      this.#inFlight = undefined;
    }
  }

  /** The next batch: the oldest waiting commits, one per run, at most `maxBatch`. */
  #take(): Waiting<C>[] {
    const runs = new Set<string>();
    const batch: Waiting<C>[] = [];
    const left: Waiting<C>[] = [];
    for (const waiting of this.#queue) {
      if (batch.length < this.#maxBatch && !runs.has(waiting.run)) {
        runs.add(waiting.run);
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
