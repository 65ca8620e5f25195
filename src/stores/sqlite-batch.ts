import type { PendingCommit } from './sqlite-commit.js';

/** A commit in the queue, with the promise its caller awaits. */
interface Queued extends PendingCommit {
  resolve(landed: boolean): void;
  reject(error: unknown): void;
}

/** How a batch is written: one commit alone, or several in one transaction (see `FencedCommits`). */
export interface BatchWriter {
  one(commit: PendingCommit): boolean;
  many(commits: readonly PendingCommit[]): (boolean | Error)[];
}

/** What a store's batches have been: how many transactions, and how many commits they carried. */
export interface BatchCounts {
  transactions: number;
  commits: number;
  largest: number;
}

/**
 * Group commit: the commits that come while the current turn of the event loop runs share one
 * transaction. The first commit of a batch schedules its flush as a microtask; every commit made
 * before the flush runs joins it, in the order they came (a run's commits land in the order it made
 * them). Any other use of the store flushes first (`flush`), so a read or a claim never overtakes a
 * commit made before it. A failure of the batch's transaction rejects every commit of the batch
 * with the same error; a statement error rejects only its own commit.
 */
export class CommitBatcher {
  #queue: Queued[] = [];
  #scheduled = false;
  /** Transactions and commits so far (for measuring how well commits batch). */
  readonly counts: BatchCounts = { transactions: 0, commits: 0, largest: 0 };

  /** The flush a batch's first commit schedules. */
  readonly #flushSoon = (): void => this.flush();

  constructor(private readonly writer: () => BatchWriter) {}

  /** Queues a commit for the next batch; settles when its batch has been written. */
  submit(commit: PendingCommit): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ fence: commit.fence, writes: commit.writes, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      queueMicrotask(this.#flushSoon);
    });
  }

  /** Writes the queued commits now (nothing when none waits), settling their promises. */
  flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    this.#count(batch.length);
    try {
      const writer = this.writer();
      if (batch.length === 1) {
        const only = batch[0] as Queued;
        only.resolve(writer.one(only));
        return;
      }
      const outcomes = writer.many(batch);
      for (const [i, queued] of batch.entries()) settle(queued, outcomes[i]);
    } catch (error) {
      for (const queued of batch) queued.reject(error);
    }
  }

  #count(size: number): void {
    this.counts.transactions += 1;
    this.counts.commits += size;
    if (size > this.counts.largest) this.counts.largest = size;
  }
}

function settle(queued: Queued, outcome: boolean | Error | undefined): void {
  if (outcome instanceof Error) queued.reject(outcome);
  else queued.resolve(outcome === true);
}
