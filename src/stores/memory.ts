import {
  checkClaim,
  checkCommit,
  checkHead,
  checkRenewal,
  liveOnStoreClock,
  onStoreClock,
  pruneBounds,
} from './run-head.js';
import { isThreadListing, listThreadRuns, runListing, selectHeads } from './run-listing.js';
import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  type PruneOptions,
  type PruneResult,
  RUN_COLLECTIONS,
  type RunClaim,
  type RunCommit,
  type RunFilter,
  type RunHead,
  STORE_FORMAT_VERSION,
  type Store,
  type StoreCollection,
  type StoredRecord,
} from './store.js';

/** A row as the memory store keeps it: JSON text, as every other store does, so values never alias. */
interface MemoryRow {
  version: unknown;
  text: unknown;
  updatedAt: number;
}

/**
 * A store in this process's memory: for tests and for runs that need resume only within one process.
 * Values are kept as JSON text, like every other store: what you read back is a copy, and what JSON
 * cannot carry is refused at write time.
 *
 * @example
 * const store = new MemoryStore();
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** collection → execution id → key → row; Maps keep first-write order. */
  readonly #rows = new Map<string, Map<string, Map<string, MemoryRow>>>();
  /** Run id → its head, kept as a deep copy (what a caller holds never aliases it). */
  readonly #heads = new Map<string, RunHead>();
  readonly #open = new OpenState('MemoryStore');

  constructor(private readonly now: () => number = Date.now) {}

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    this.#write(collection, executionId, key, value, true);
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return this.#write(collection, executionId, key, value, false);
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const row = this.#rows.get(collection)?.get(executionId)?.get(key);
    return row === undefined ? undefined : this.#record(collection, executionId, key, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const rows = this.#rows.get(collection)?.get(executionId);
    if (rows === undefined) return [];
    return [...rows].map(([key, row]) => this.#record(collection, executionId, key, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    return [...(this.#rows.get(collection)?.keys() ?? [])].sort();
  }

  async createRun(head: RunHead): Promise<boolean> {
    this.#open.check();
    checkHead('MemoryStore', head);
    if (this.#heads.has(head.id)) return false;
    this.#heads.set(head.id, { ...structuredClone(head), lease: onStoreClock(head.lease, this.now()) });
    return true;
  }

  async readRun(id: string): Promise<RunHead | undefined> {
    this.#open.use('flow_runs', id);
    const head = this.#heads.get(id);
    return head === undefined ? undefined : this.#copy(head);
  }

  async claimRun(id: string, expectedVersion: number, claim: RunClaim): Promise<boolean> {
    this.#open.check();
    checkClaim('MemoryStore', id, expectedVersion, claim);
    const head = this.#heads.get(id);
    if (head === undefined || head.version !== expectedVersion) return false;
    const now = this.now();
    if (liveOnStoreClock(head.lease, now) && head.lease?.token !== claim.replaces) return false;
    head.status = claim.status;
    head.lease = onStoreClock(claim.lease === null ? null : { ...claim.lease }, now);
    head.version += 1;
    head.updatedAt = now;
    return true;
  }

  async renewLease(id: string, token: string, expiresAt: number, ttlMs?: number): Promise<boolean> {
    this.#open.use('flow_runs', id);
    checkRenewal('MemoryStore', expiresAt, ttlMs);
    const lease = this.#heads.get(id)?.lease;
    if (lease === undefined || lease === null || lease.token !== token) return false;
    lease.expiresAt = ttlMs === undefined ? expiresAt : this.now() + ttlMs;
    return true;
  }

  async commit(id: string, commit: RunCommit): Promise<boolean> {
    this.#open.check();
    checkCommit('MemoryStore', id, commit);
    const head = this.#heads.get(id);
    if (head?.lease?.token !== commit.token) return false;
    // Encode everything first: a value JSON cannot carry fails the commit before anything is written.
    const texts = commit.writes.map((w) => encodeValue('MemoryStore', w.value));
    const at = this.now();
    commit.writes.forEach((write, i) => {
      const row = { version: STORE_FORMAT_VERSION, text: texts[i], updatedAt: at };
      this.#execution(write.collection, id).set(write.key, row);
    });
    if (commit.status !== undefined) {
      head.status = commit.status;
      head.version += 1;
    }
    if (commit.release === true) head.lease = null;
    if (commit.status !== undefined || commit.release === true) head.updatedAt = at;
    return true;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunHead[]> {
    this.#open.check();
    const listing = runListing('MemoryStore', filter);
    if (isThreadListing(listing)) return listThreadRuns(this, listing);
    return selectHeads([...this.#heads.values()], listing).map((head) => this.#copy(head));
  }

  async prune(options: PruneOptions): Promise<string[]> {
    return (await this.pruneRuns(options)).pruned;
  }

  async pruneRuns(options: PruneOptions): Promise<PruneResult> {
    this.#open.check();
    const { before, statuses, keepHistory } = pruneBounds('MemoryStore', options);
    const chosen = new Set<string>(statuses);
    const now = this.now();
    const matched = [...this.#heads.values()]
      .filter((head) => chosen.has(head.status) && head.updatedAt < before)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const kept = matched.filter((head) => liveOnStoreClock(head.lease, now)).map((head) => head.id);
    const pruned = matched.filter((head) => !liveOnStoreClock(head.lease, now)).map((head) => head.id);
    for (const id of pruned) {
      if (!keepHistory) this.#heads.delete(id);
      const dropped: readonly StoreCollection[] = keepHistory ? ['run_events'] : RUN_COLLECTIONS;
      for (const collection of dropped) this.#rows.get(collection)?.delete(id);
    }
    return { pruned, kept };
  }

  async close(): Promise<void> {
    this.#open.close();
    this.#rows.clear();
    this.#heads.clear();
  }

  /** A head as a caller gets it: a copy, its lease telling the time it has left on this store's clock. */
  #copy(head: RunHead): RunHead {
    const copy = structuredClone(head);
    if (copy.lease !== null) copy.lease.remainingMs = copy.lease.expiresAt - this.now();
    return copy;
  }

  /**
   * Writes a row as another writer could have left it (a format version, raw text): how tests give
   * the memory store the corrupt or foreign rows that the other stores can meet on disk.
   */
  writeRaw(
    collection: StoreCollection,
    executionId: string,
    key: string,
    version: unknown,
    text: unknown,
  ): void {
    this.#execution(collection, executionId).set(key, { version, text, updatedAt: this.now() });
  }

  #write(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
    replace: boolean,
  ): boolean {
    this.#open.use(collection, executionId, key);
    const text = encodeValue('MemoryStore', value);
    const rows = this.#execution(collection, executionId);
    if (!replace && rows.has(key)) return false;
    rows.set(key, { version: STORE_FORMAT_VERSION, text, updatedAt: this.now() });
    return true;
  }

  #execution(collection: string, executionId: string): Map<string, MemoryRow> {
    let executions = this.#rows.get(collection);
    if (executions === undefined) {
      executions = new Map();
      this.#rows.set(collection, executions);
    }
    let rows = executions.get(executionId);
    if (rows === undefined) {
      rows = new Map();
      executions.set(executionId, rows);
    }
    return rows;
  }

  #record(collection: string, executionId: string, key: string, row: MemoryRow): StoredRecord {
    const value = decodeValue({ collection, executionId, key }, row.version, row.text);
    return { key, value, updatedAt: row.updatedAt };
  }
}
