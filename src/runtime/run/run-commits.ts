import { describeThrown, isStatecrewError } from '../../errors.js';
import type { RecordWrite } from '../../stores/store.js';
import type { StoreErrorRecord } from '../../types.js';
import type { HeadChange, RunOwner } from '../durable/run-owner.js';

/** What a failed write does: `stop` the run before anything else starts, or `continue` it, reporting it. */
export type StoreErrorPolicy = 'stop' | 'continue';

/** How a run's commits report what goes wrong. */
export interface CommitOutcomes {
  /** `stop`: a failed commit halts the run; `continue`: it is let go (a lost lease always halts). */
  policy: StoreErrorPolicy;
  /** Stops the run at once with `error`: a commit failed, or found the lease taken. */
  halt(error: unknown): void;
  /** A failed write that was let go (policy `continue`): reported as a `store.error`. */
  letGo(record: StoreErrorRecord): void;
}

/** One commit waiting for the ones before it: its records by address, its head change, its end. */
interface Batch {
  writes: Map<string, RecordWrite>;
  change: HeadChange;
  done: Promise<void>;
}

/** Stages `write` in `staged`, after the others (replacing a record staged before at its address). */
function restage(staged: Map<string, RecordWrite>, write: RecordWrite): void {
  const address = `${write.collection}\u0000${write.key}`;
  staged.delete(address);
  staged.set(address, write);
}

/**
 * The one commit path of a run with a store: what the run stages (a settled node's records, a flow's
 * header) goes to the store through the run's owner, as fenced commits made one after the other, each
 * carrying the run's kept events. A commit asked for while another is under way waits for it and
 * takes along what is staged meanwhile (one commit for a burst). A commit that fails, or that finds
 * the lease taken, halts the run (`lease_lost` always; a store's error unless the policy lets it go),
 * and nothing is committed after it. No commit ever rejects: the run is halted instead.
 */
export class RunCommits {
  /** Records staged since the last commit, by address: a record staged again replaces the earlier. */
  #staged = new Map<string, RecordWrite>();
  /** The commit under way, or the last one (resolved). */
  #chain: Promise<void> = Promise.resolve();
  /** The commit that waits for the one under way, which later commits join. */
  #waiting: Batch | undefined;
  /** The first failure that halted the run, if one did: nothing is committed after it. */
  #failure: unknown;
  /** The failed writes that were let go (policy `continue`), in order. */
  readonly errors: StoreErrorRecord[] = [];

  constructor(
    private readonly owner: RunOwner,
    private readonly outcomes: CommitOutcomes,
  ) {}

  /** The failure that halted the run, if one did. */
  get failure(): unknown {
    return this.#failure;
  }

  /** Whether records wait to be committed. */
  get staged(): boolean {
    return this.#staged.size > 0;
  }

  /** Stages a record for the next commit (one staged again at its address goes after the others). */
  stage(write: RecordWrite): void {
    restage(this.#staged, write);
  }

  /**
   * Commits what is staged, and `change` to the run's head, after the commits before it; resolves
   * once it landed or failed (never rejects: a failure halts the run, or is let go).
   */
  commit(change: HeadChange = {}): Promise<void> {
    const writes = this.#staged;
    this.#staged = new Map();
    const waiting = this.#waiting;
    // A commit joins the one waiting for the commit under way, unless that one ends the run.
    if (waiting !== undefined && waiting.change.release !== true) {
      for (const write of writes.values()) restage(waiting.writes, write);
      if (change.status !== undefined || change.release !== undefined) waiting.change = change;
      return waiting.done;
    }
    const batch: Batch = { writes, change, done: Promise.resolve() };
    batch.done = this.#chain.then(() => this.#land(batch));
    this.#waiting = batch;
    this.#chain = batch.done;
    return batch.done;
  }

  /**
   * Commits what is staged with `change` (the run's last write: its end) after every earlier commit;
   * rejects with the failure when it failed and was not let go.
   */
  async commitLast(change: HeadChange): Promise<void> {
    await this.commit(change);
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Resolves once every commit asked for so far has landed or failed. */
  settled(): Promise<void> {
    return this.#chain;
  }

  async #land(batch: Batch): Promise<void> {
    if (this.#waiting === batch) this.#waiting = undefined;
    if (this.#failure !== undefined) return;
    try {
      await this.owner.commit([...batch.writes.values()], batch.change);
    } catch (error) {
      this.#failed(error, [...batch.writes.values()]);
    }
  }

  /** A commit failed: halts the run, or — policy `continue`, the lease still the run's — lets it go. */
  #failed(error: unknown, writes: readonly RecordWrite[]): void {
    const leaseLost = isStatecrewError(error, 'lease_lost');
    if (this.outcomes.policy === 'stop' || leaseLost) {
      this.#failure = error;
      this.outcomes.halt(error);
      return;
    }
    for (const write of writes) {
      const record: StoreErrorRecord = {
        collection: write.collection,
        key: write.key,
        error: describeThrown(error),
      };
      if (isStatecrewError(error)) record.code = error.code;
      this.errors.push(record);
      this.outcomes.letGo(record);
    }
  }
}
