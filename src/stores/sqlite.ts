import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {
  InvalidOptionError,
  isStatecrewError,
  MissingDependencyError,
  StoreUnavailableError,
} from '../errors.js';
import { type Durability, durabilityOf, flagOf } from './durability.js';
import {
  checkClaim,
  checkCommit,
  checkHead,
  checkRenewal,
  headFromRow,
  headRow,
  leaseColumns,
  onStoreClock,
  pruneBounds,
  type RawHeadRow,
} from './run-head.js';
import { inListingOrder, isThreadListing, listThreadRuns, runListing } from './run-listing.js';
import { type BatchCounts, type BatchWriter, CommitBatcher } from './sqlite-batch.js';
import { IdleCheckpointer } from './sqlite-checkpoint.js';
import { type FenceParams, isStatementError, type PendingCommit } from './sqlite-commit.js';
import { migrate, prepareStatements, type RecordStatements, type SqliteStatements } from './sqlite-schema.js';
import { enterWal, setDurability } from './sqlite-wal.js';
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

const NAME = 'SqliteStore';

/** Options of a {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database file (created with its directory if missing), or `':memory:'`.
   * @default the `STATECREW_DB` environment variable, else `.statecrew/statecrew.db` under the working directory
   */
  path?: string | undefined;
  /**
   * A better-sqlite3 connection of yours to keep the tables in (instead of `path`); it is put in WAL
   * mode, its `synchronous` set as `durability` says, its automatic checkpoint raised to 10,000
   * pages (checkpointed when the store is idle instead), and it is left open on `close`.
   */
  database?: BetterSqlite3.Database | undefined;
  /**
   * How long a write — and opening a new file another process writes to — waits for another process's
   * write to finish, in ms. @default 5000
   */
  busyTimeoutMs?: number | undefined;
  /**
   * What an acknowledged commit survives: `'process'` (WAL with `synchronous = NORMAL`: a crash of
   * any process, not a power loss or an operating-system crash, which may lose the last commits
   * though never corrupt the file) or `'power'` (`synchronous = FULL`: a power loss too, at the cost
   * of an `fsync` of the WAL per commit). Set on every connection the store opens, and on a
   * `database` given to it. @default 'process'
   */
  durability?: Durability | undefined;
  /**
   * Commits of several runs of this process that come at once share one transaction, each still
   * fenced by its own lease (a run whose lease was taken writes nothing; the others commit). `false`
   * gives every commit its own transaction. @default true
   */
  groupCommit?: boolean | undefined;
}

/** The database file a store opens when it is given no path. */
export function defaultSqlitePath(): string {
  return resolve(process.env.STATECREW_DB ?? '.statecrew/statecrew.db');
}

interface Row {
  key: string;
  version: unknown;
  value: unknown;
  updated_at: number;
}

/**
 * The embedded default store: one SQLite file (WAL, so readers never wait for the writer), one table
 * per collection, created idempotently and versioned in the file's `user_version`. Several stores,
 * in this process or others, may share a file. better-sqlite3 is loaded on first use, so importing
 * statecrew never loads it.
 *
 * @example
 * const store = new SqliteStore();                       // .statecrew/statecrew.db
 * const scratch = new SqliteStore({ path: ':memory:' });
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  /** The file this store opens (absolute), or `':memory:'`. */
  readonly path: string;
  readonly #busyTimeoutMs: number;
  /** What an acknowledged commit survives. */
  readonly durability: Durability;
  /** Whether commits of several runs that come at once share a transaction. */
  readonly groupCommit: boolean;
  readonly #own: BetterSqlite3.Database | undefined;
  readonly #open = new OpenState(NAME);
  #db: BetterSqlite3.Database | undefined;
  #statements: SqliteStatements | undefined;
  readonly #batch = new CommitBatcher(() => this.#batchWriter());
  /** How batches are written on the open connection (made once it opened). */
  #writer: BatchWriter | undefined;
  #checkpointer: IdleCheckpointer | undefined;

  constructor(options: SqliteStoreOptions = {}) {
    const { path, database } = options;
    if (path !== undefined && (typeof path !== 'string' || path === '')) {
      throw new InvalidOptionError(NAME, 'path', 'a non-empty file path or ":memory:"', path);
    }
    if (database !== undefined && (typeof database?.prepare !== 'function' || path !== undefined)) {
      throw new InvalidOptionError(NAME, 'database', 'a better-sqlite3 Database, without a path', database);
    }
    const busy = options.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busy) || busy < 0) {
      throw new InvalidOptionError(NAME, 'busyTimeoutMs', 'an integer ≥ 0', busy);
    }
    this.#own = database;
    this.path =
      database !== undefined
        ? database.name
        : path === ':memory:'
          ? ':memory:'
          : resolve(path ?? defaultSqlitePath());
    this.#busyTimeoutMs = busy;
    this.durability = durabilityOf(NAME, options.durability, 'process');
    this.groupCommit = flagOf(NAME, 'groupCommit', options.groupCommit, true);
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    const text = this.#checked(collection, executionId, key, value);
    this.#write(() =>
      this.#records(collection).put.run(executionId, key, STORE_FORMAT_VERSION, text, Date.now()),
    );
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    const text = this.#checked(collection, executionId, key, value);
    const { changes } = this.#write(() =>
      this.#records(collection).insert.run(executionId, key, STORE_FORMAT_VERSION, text, Date.now()),
    );
    return changes === 1;
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const row = this.#use(() => this.#records(collection).get.get(executionId, key)) as Row | undefined;
    return row === undefined ? undefined : toRecord(collection, executionId, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const rows = this.#use(() => this.#records(collection).list.all(executionId)) as Row[];
    return rows.map((row) => toRecord(collection, executionId, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const rows = this.#use(() => this.#records(collection).executions.all()) as { execution_id: string }[];
    // SQLite sorts UTF-8 bytes; the contract is JavaScript's order of strings.
    return rows.map((r) => r.execution_id).sort();
  }

  async createRun(head: RunHead): Promise<boolean> {
    this.#open.check();
    checkHead(NAME, head);
    return this.#write(() => {
      const row = headRow({ ...head, lease: onStoreClock(head.lease, Date.now()) });
      return this.#heads().create.run(row).changes === 1;
    });
  }

  async readRun(id: string): Promise<RunHead | undefined> {
    this.#open.use('flow_runs', id);
    const row = this.#use(() => this.#heads().read.get(id)) as RawHeadRow | undefined;
    return row === undefined ? undefined : headFromRow(withRemaining(row, Date.now()));
  }

  async claimRun(id: string, expectedVersion: number, claim: RunClaim): Promise<boolean> {
    this.#open.check();
    checkClaim(NAME, id, expectedVersion, claim);
    // The writer's clock, read inside the write lock: what the claim's lease and its check go by.
    return this.#write(() => {
      const now = Date.now();
      const change = {
        id,
        expected: expectedVersion,
        status: claim.status,
        ...leaseColumns(onStoreClock(claim.lease, now)),
        updated_at: now,
        now,
        replaces: claim.replaces ?? null,
      };
      return this.#heads().claim.run(change).changes === 1;
    });
  }

  async renewLease(id: string, token: string, expiresAt: number, ttlMs?: number): Promise<boolean> {
    this.#open.use('flow_runs', id);
    checkRenewal(NAME, expiresAt, ttlMs);
    return this.#write(() => {
      const expiry = ttlMs === undefined ? expiresAt : Date.now() + ttlMs;
      return this.#heads().renew.run(expiry, id, token).changes === 1;
    });
  }

  async commit(id: string, commit: RunCommit): Promise<boolean> {
    this.#open.check();
    checkCommit(NAME, id, commit);
    const writes = commit.writes.map((w) => ({
      collection: w.collection,
      key: w.key,
      text: encodeValue(NAME, w.value),
    }));
    const fence: FenceParams = {
      id,
      token: commit.token,
      status: commit.status ?? null,
      release: commit.release === true ? 1 : 0,
      updated_at: Date.now(),
    };
    if (!this.groupCommit) {
      const landed = this.#use(() => this.#prepared().commit(fence, writes));
      this.#checkpointer?.wrote();
      return landed;
    }
    return this.#batch.submit({ fence, writes });
  }

  /** How commits have batched on this store so far: transactions, commits, the largest batch. */
  get commitBatches(): Readonly<BatchCounts> {
    return { ...this.#batch.counts };
  }

  async listRuns(filter: RunFilter = {}): Promise<RunHead[]> {
    this.#open.check();
    const { heads } = this.#prepared();
    const listing = runListing(NAME, filter);
    if (isThreadListing(listing)) return listThreadRuns(this, listing);
    const params = {
      statuses: listing.statuses === null ? null : JSON.stringify(listing.statuses),
      name: listing.name,
      from: listing.createdFrom,
      before: listing.createdBefore,
      after_at: listing.after?.createdAt ?? null,
      after_id: listing.after?.id ?? null,
      limit: listing.limit ?? -1,
    };
    const rows = this.#use(() => heads.list.all(params)) as RawHeadRow[];
    const now = Date.now();
    return inListingOrder(
      rows.map((row) => headFromRow(withRemaining(row, now))),
      listing,
    );
  }

  async prune(options: PruneOptions): Promise<string[]> {
    return (await this.pruneRuns(options)).pruned;
  }

  async pruneRuns(options: PruneOptions): Promise<PruneResult> {
    this.#open.check();
    const { before, statuses, keepHistory } = pruneBounds(NAME, options);
    const ids = (rows: unknown[]) => (rows as { id: string }[]).map((r) => r.id).sort();
    return this.#use(() => {
      const db = this.#connection();
      const { heads } = this.#prepared();
      const prune = db.transaction((): PruneResult => {
        // Under the write lock: no heartbeat or claim lands between the check and the delete.
        const bounds = { statuses: JSON.stringify(statuses), before, now: Date.now() };
        const pruned = ids(heads.pruned.all(bounds));
        const kept = ids(heads.kept.all(bounds));
        // Keeping history, only the kept events go; else every record the runs own, and their heads.
        const dropped = keepHistory ? (['run_events'] as const) : RUN_COLLECTIONS;
        for (const collection of dropped) this.#records(collection).prune.run(bounds);
        if (!keepHistory) heads.prune.run(bounds);
        return { pruned, kept };
      });
      return prune.immediate();
    });
  }

  async close(): Promise<void> {
    // Commits made before close land (or fail) first: none is left waiting on a closed file.
    if (!this.#open.closed) this.#batch.flush();
    this.#open.close();
    this.#checkpointer?.stop();
    this.#checkpointer = undefined;
    this.#statements = undefined;
    this.#writer = undefined;
    if (this.#own === undefined) this.#db?.close();
    this.#db = undefined;
  }

  #checked(collection: StoreCollection, executionId: string, key: string, value: JsonValue): string {
    this.#open.use(collection, executionId, key);
    return encodeValue(NAME, value);
  }

  /** Runs statements, naming a file that cannot be used (full, locked, unreadable) as `store_unavailable`. */
  #use<T>(statements: () => T): T {
    // Commits made before this call land first: nothing overtakes a commit still in its batch.
    this.#batch.flush();
    try {
      return statements();
    } catch (error) {
      throw this.#named(error);
    }
  }

  /** A statement's own error as it is; any other (the file full, locked, unreadable) as `store_unavailable`. */
  #named(error: unknown): unknown {
    return isStatementError(error) ? error : new StoreUnavailableError(NAME, this.path, error);
  }

  /** How a batch of commits is written (once the file is open, the same writer for every batch). */
  #batchWriter(): BatchWriter {
    const writer = this.#writer ?? this.#newBatchWriter();
    this.#checkpointer?.wrote();
    return writer;
  }

  /** A batch writer on the open connection, each way naming a file that cannot be used as `store_unavailable`. */
  #newBatchWriter(): BatchWriter {
    const statements = this.#use(() => this.#prepared());
    const writer: BatchWriter = {
      one: ({ fence, writes }: PendingCommit) => {
        try {
          return statements.commit(fence, writes);
        } catch (error) {
          throw this.#named(error);
        }
      },
      many: (commits: readonly PendingCommit[]) => this.#use(() => statements.commitMany(commits)),
    };
    this.#writer = writer;
    return writer;
  }

  /**
   * One write statement under BEGIN IMMEDIATE: the write lock is taken first, waiting up to the busy
   * timeout. Run deferred, a statement that reads before it writes gets SQLITE_BUSY at once (no wait)
   * when another process committed since its read began — two processes on one file would then fail
   * writes at random under load.
   */
  #write<T>(statement: () => T): T {
    const written = this.#use(() => this.#connection().transaction(statement).immediate());
    this.#checkpointer?.wrote();
    return written;
  }

  #records(collection: StoreCollection): RecordStatements {
    return this.#prepared().records.get(collection) as RecordStatements;
  }

  #heads() {
    return this.#prepared().heads;
  }

  #prepared(): SqliteStatements {
    return this.#statements ?? this.#connect();
  }

  #connection(): BetterSqlite3.Database {
    this.#prepared();
    return this.#db as BetterSqlite3.Database;
  }

  /** Opens the file, creates or upgrades its tables, and prepares every statement. */
  #connect(): SqliteStatements {
    let db: BetterSqlite3.Database;
    try {
      if (this.#own !== undefined) db = this.#own;
      else {
        const Driver = loadDriver();
        if (this.path !== ':memory:') mkdirSync(dirname(this.path), { recursive: true });
        db = new Driver(this.path, { timeout: this.#busyTimeoutMs });
      }
      enterWal(db, this.#busyTimeoutMs);
      setDurability(db, this.durability);
    } catch (error) {
      if (isStatecrewError(error, 'missing_dependency')) throw error;
      throw new StoreUnavailableError(NAME, this.path, error);
    }
    try {
      migrate(db, this.path);
      this.#statements = prepareStatements(db);
    } catch (error) {
      if (this.#own === undefined) db.close();
      throw error;
    }
    this.#db = db;
    this.#checkpointer = new IdleCheckpointer(db);
    return this.#statements;
  }
}

/** better-sqlite3, loaded the first time a store opens its file. */
let driver: typeof BetterSqlite3 | undefined;
function loadDriver(): typeof BetterSqlite3 {
  driver ??= requireDriver();
  return driver;
}

function requireDriver(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND') {
      throw new MissingDependencyError(NAME, 'better-sqlite3', error);
    }
    throw error;
  }
}

/** A head's row with its lease's time left at `now`, the writer's clock (the store's, for SQLite). */
function withRemaining(row: RawHeadRow, now: number): RawHeadRow {
  const expires = row.expires_at;
  return typeof expires === 'number' ? { ...row, remaining_ms: expires - now } : row;
}

function toRecord(collection: string, executionId: string, row: Row): StoredRecord {
  const value = decodeValue({ collection, executionId, key: row.key }, row.version, row.value);
  return { key: row.key, value, updatedAt: row.updated_at };
}
