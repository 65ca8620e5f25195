import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import {
  InvalidOptionError,
  isStatecrewError,
  MissingDependencyError,
  StoreUnavailableError,
} from '../errors.js';
import { type Durability, durabilityOf, flagOf } from './durability.js';
import { CommitBatcher } from './postgres-batcher.js';
import { groupCommitParams, groupCommitSql, heldOf, type PendingCommit } from './postgres-group.js';
import {
  commitRecordParams,
  headParams,
  type PostgresSql,
  type PreparedSql,
  postgresSql,
  prepared,
  quote,
  setUpSchema,
} from './postgres-schema.js';
import {
  checkClaim,
  checkCommit,
  checkHead,
  checkRenewal,
  headFromRow,
  headRow,
  leaseColumns,
  pruneBounds,
  type RawHeadRow,
} from './run-head.js';
import { inListingOrder, isThreadListing, listThreadRuns, runListing } from './run-listing.js';
import { checkConnectTimeout, UNREACHABLE_ERRNOS } from './server-connection.js';
import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  type PruneOptions,
  type PruneResult,
  type RunClaim,
  type RunCommit,
  type RunFilter,
  type RunHead,
  STORE_COLLECTIONS,
  STORE_FORMAT_VERSION,
  type Store,
  type StoreCollection,
  type StoredRecord,
} from './store.js';

const NAME = 'PostgresStore';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/**
 * SQLSTATEs of a server that is going away or refuses connections, and of a database that does not
 * exist; besides these, classes 08 (connection) and 28 (authentication).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '3D000']);
const UNAVAILABLE_CLASSES = /^(08|28)[0-9A-Z]{3}$/;
/** The most commits one group-commit statement carries. */
const MAX_GROUP = 256;
/** Group-commit statements in flight at once: 100 flows at once ran no faster on 2 or 4 than on 1. */
const GROUP_LANES = 1;
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'is not queryable',
];

/** Options every {@link PostgresStore} accepts, whichever way it connects. */
export interface PostgresStoreBaseOptions {
  /** The schema that holds the store's tables (created if missing); a plain SQL identifier. @default 'statecrew' */
  schema?: string | undefined;
  /** How long to wait for a connection before failing with `store_unavailable`. @default 5000 */
  connectTimeoutMs?: number | undefined;
  /**
   * What an acknowledged commit survives: `'power'` (`synchronous_commit = on`: the commit is on the
   * server's disk before it is acknowledged) or `'process'` (`synchronous_commit = off`: a crash of
   * any process, the server's too, but the server's machine failing may lose its last commits).
   * Each commit sets it for its own transaction, on any pool; a pool the store opens also sets it on
   * its connections (for `put`, `insert` and claims too).
   * @default 'power'
   */
  durability?: Durability | undefined;
  /**
   * Commits of several runs of this process that come at once share one statement, each still
   * fenced by its own lease (a run whose lease was taken writes nothing; the others commit). `false`
   * gives every commit its own statement. Commits that come while one is in flight wait for it and go
   * together (at most 256, at most one per run, so a run's commits land in order); a failed statement
   * rejects every commit it carried. @default true
   */
  groupCommit?: boolean | undefined;
}

/**
 * How a {@link PostgresStore} connects: a connection string (the store owns its pool and ends it on
 * `close`) or a pool of yours (left open on `close`). Exactly one of the two.
 */
export type PostgresStoreOptions = PostgresStoreBaseOptions &
  ({ connectionString: string; pool?: never } | { pool: Pool; connectionString?: never });

interface RecordRow extends QueryResultRow {
  key: string;
  version: unknown;
  value: unknown;
  updated_at: string | number;
}

/**
 * A store in PostgreSQL: one table per collection and a `runs` table of heads, in its own schema,
 * created (or upgraded) on first use. Values are kept as JSON text so they read back exactly; `list`
 * keeps first-write order; a commit is one statement, so its fence and its writes are one
 * transaction, and commits of several runs that come at once share one (`groupCommit`). Calls fail with `store_unavailable` when the server or database cannot be reached,
 * after at most `connectTimeoutMs`. The `pg` package is loaded on first use.
 *
 * @example
 * const store = new PostgresStore({ connectionString: 'postgres://127.0.0.1:5432/test', schema: 'statecrew' });
 * // or, sharing a pool of yours (not ended by close): new PostgresStore({ pool })
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  /** What an acknowledged commit survives. */
  readonly durability: Durability;
  /** Whether commits of several runs that come at once share a statement. */
  readonly groupCommit: boolean;
  readonly #open = new OpenState(NAME);
  readonly #sql: PostgresSql;
  readonly #schema: string;
  readonly #where: string;
  readonly #connectionString: string | undefined;
  readonly #connectTimeoutMs: number;
  /** `synchronous_commit` for the store's commits, as its durability says. */
  readonly #synchronousCommit: 'on' | 'off';
  readonly #groupSql: PreparedSql;
  readonly #batcher: CommitBatcher<PendingCommit>;
  /** The pool, once asked for: a promise, as pg is loaded on first use. */
  #pool: Promise<Pool> | undefined;
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions) {
    const { connectionString, pool, schema = 'statecrew', connectTimeoutMs = 5000 } = checkOptions(options);
    this.#schema = schema;
    this.#sql = postgresSql(schema);
    this.#connectTimeoutMs = connectTimeoutMs;
    this.#connectionString = connectionString;
    this.#pool = pool === undefined ? undefined : Promise.resolve(pool);
    this.#where = connectionString === undefined ? 'the pool' : serverOf(connectionString);
    this.durability = durabilityOf(NAME, options.durability, 'power');
    this.groupCommit = flagOf(NAME, 'groupCommit', options.groupCommit, true);
    this.#synchronousCommit = this.durability === 'power' ? 'on' : 'off';
    this.#groupSql = prepared(groupCommitSql((table) => `${quote(schema)}.${quote(table)}`));
    this.#batcher = new CommitBatcher((commits) => this.#sendCommits(commits), MAX_GROUP, GROUP_LANES);
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    await this.#write('put', collection, executionId, key, value);
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return (await this.#write('insert', collection, executionId, key, value)) === 1;
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const { rows } = await this.#query<RecordRow>(this.#sql.records[collection].get, [executionId, key]);
    const row = rows[0];
    return row === undefined ? undefined : toRecord(collection, executionId, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const { rows } = await this.#query<RecordRow>(this.#sql.records[collection].list, [executionId]);
    return rows.map((row) => toRecord(collection, executionId, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const { rows } = await this.#query<{ id: string }>(this.#sql.records[collection].executions);
    // "C" orders by code point, JavaScript by UTF-16 unit: they differ past U+FFFF, so sort as JS does.
    return rows.map((row) => row.id).sort();
  }

  async createRun(head: RunHead): Promise<boolean> {
    this.#open.check();
    checkHead(NAME, head);
    const params = headParams(headRow(head), head.lease?.ttlMs);
    const { rowCount } = await this.#query(this.#sql.runs.create, params);
    return rowCount === 1;
  }

  async readRun(id: string): Promise<RunHead | undefined> {
    this.#open.use('flow_runs', id);
    const { rows } = await this.#query<RawHeadRow>(this.#sql.runs.read, [id]);
    const row = rows[0];
    return row === undefined ? undefined : headFromRow(row);
  }

  async claimRun(id: string, expectedVersion: number, claim: RunClaim): Promise<boolean> {
    this.#open.check();
    checkClaim(NAME, id, expectedVersion, claim);
    const lease = leaseColumns(claim.lease);
    const { rowCount } = await this.#query(this.#sql.runs.claim, [
      id,
      expectedVersion,
      claim.status,
      lease.token,
      lease.expires_at,
      lease.owner,
      Date.now(),
      claim.lease?.ttlMs ?? null,
      claim.replaces ?? null,
    ]);
    return rowCount === 1;
  }

  async renewLease(id: string, token: string, expiresAt: number, ttlMs?: number): Promise<boolean> {
    this.#open.use('flow_runs', id);
    checkRenewal(NAME, expiresAt, ttlMs);
    const { rowCount } = await this.#query(this.#sql.runs.renew, [id, token, expiresAt, ttlMs ?? null]);
    return rowCount === 1;
  }

  async commit(id: string, commit: RunCommit): Promise<boolean> {
    this.#open.check();
    checkCommit(NAME, id, commit);
    const pending: PendingCommit = {
      id,
      token: commit.token,
      status: commit.status ?? null,
      release: commit.release === true,
      at: Date.now(),
      records: commitRecordParams(NAME, commit.writes),
    };
    return this.groupCommit ? this.#batcher.submit(id, pending) : this.#commitOne(pending);
  }

  /** One commit as its own statement: a step's one record by its own shape, any other by the records it writes. */
  async #commitOne(c: PendingCommit): Promise<boolean> {
    const moving = c.status !== null || c.release;
    const written: number[] = [];
    for (let i = 0; i < STORE_COLLECTIONS.length; i += 1) {
      if ((c.records[2 * i] as string[]).length > 0) written.push(i);
    }
    const [only] = written;
    if (!moving && written.length === 1 && (c.records[2 * (only as number)] as string[]).length === 1) {
      return this.#commitRecord(c, only as number);
    }
    const records = written.flatMap((i) => [c.records[2 * i] as string[], c.records[2 * i + 1] as string[]]);
    const { text, name } = this.#sql.runs.commit(moving, written);
    const values = [c.id, c.token, c.status, c.release, c.at, STORE_FORMAT_VERSION];
    const { rows } = await this.#query<{ held: number }>({
      name,
      text,
      values: [...values, ...records, this.#synchronousCommit],
    });
    return rows[0]?.held === 1;
  }

  /** A commit of one record to the collection at `collection`, leaving the head as it is; true when its fence held. */
  async #commitRecord(c: PendingCommit, collection: number): Promise<boolean> {
    const { text, name } = this.#sql.runs.commitRecord[collection] as PreparedSql;
    const key = (c.records[2 * collection] as string[])[0];
    const value = (c.records[2 * collection + 1] as string[])[0];
    const values = [c.id, c.token, key, value, c.at, STORE_FORMAT_VERSION, this.#synchronousCommit];
    const { rowCount } = await this.#query({ name, text, values });
    return rowCount === 1;
  }

  /** A batch of commits (one per run): a lone one as its own statement, several as one. */
  async #sendCommits(commits: PendingCommit[]): Promise<boolean[]> {
    if (commits.length === 1) return [await this.#commitOne(commits[0] as PendingCommit)];
    const values = groupCommitParams(commits, STORE_FORMAT_VERSION, this.#synchronousCommit);
    const { rows } = await this.#query<{ held: (number | string)[] }>({ ...this.#groupSql, values });
    return heldOf(commits.length, rows[0]?.held ?? []);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunHead[]> {
    this.#open.check();
    const l = runListing(NAME, filter);
    if (isThreadListing(l)) return listThreadRuns(this, l);
    const values = [l.statuses, l.name, l.createdFrom, l.createdBefore, l.after?.createdAt ?? null];
    const { rows } = await this.#query<RawHeadRow>(this.#sql.runs.list, [
      ...values,
      l.after?.id ?? null,
      l.limit,
    ]);
    // Sorted by id here, not by SQL: the contract is JavaScript's order of strings, not a collation's.
    return inListingOrder(rows.map(headFromRow), l);
  }

  async prune(options: PruneOptions): Promise<string[]> {
    return (await this.pruneRuns(options)).pruned;
  }

  async pruneRuns(options: PruneOptions): Promise<PruneResult> {
    this.#open.check();
    const { before, statuses, keepHistory } = pruneBounds(NAME, options);
    const sql = keepHistory ? this.#sql.runs.pruneEvents : this.#sql.runs.prune;
    const { rows } = await this.#query<{ id: string; kept: boolean }>(sql, [statuses, before]);
    const ids = (kept: boolean) =>
      rows
        .filter((row) => row.kept === kept)
        .map((row) => row.id)
        .sort();
    return { pruned: ids(false), kept: ids(true) };
  }

  async close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#open.close();
      // Commits already taken are answered before the pool ends.
      this.#closing = this.#batcher.settled().then(() => this.#endOwnedPool());
    }
    await this.#closing;
  }

  async #endOwnedPool(): Promise<void> {
    if (this.#connectionString === undefined) return;
    const pool = await this.#pool?.catch(() => undefined);
    await pool?.end();
  }

  async #write(
    mode: 'put' | 'insert',
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<number> {
    this.#open.use(collection, executionId, key);
    const text = encodeValue(NAME, value);
    const { rowCount } = await this.#query(this.#sql.records[collection][mode], [
      executionId,
      key,
      STORE_FORMAT_VERSION,
      text,
      Date.now(),
    ]);
    return rowCount ?? 0;
  }

  /**
   * Runs one parameterised statement once the tables exist, naming an unreachable server as such.
   * The pool is asked for before the first await, so `close` always sees the pool a call opens.
   */
  async #query<R extends QueryResultRow>(
    query: string | QueryConfig<unknown[]>,
    values: unknown[] = [],
  ): Promise<QueryResult<R>> {
    const connecting = this.#connect();
    try {
      const pool = await connecting;
      await this.#initialise(pool);
      return await pool.query<R, unknown[]>(typeof query === 'string' ? { text: query, values } : query);
    } catch (error) {
      if (isStatecrewError(error) || !isUnavailable(error)) throw error;
      throw new StoreUnavailableError(NAME, this.#where, error);
    }
  }

  /** The pool: the one given, or one of the store's own, made on first use (a failed try is forgotten). */
  #connect(): Promise<Pool> {
    if (this.#pool === undefined) {
      const pool = openPool(this.#connectionString ?? '', this.#connectTimeoutMs, this.#synchronousCommit);
      this.#pool = pool;
      pool.catch(() => {
        if (this.#pool === pool) this.#pool = undefined;
      });
    }
    return this.#pool;
  }

  /** One setup per store object, shared by concurrent calls; a failed setup is tried again next call. */
  #initialise(pool: Pool): Promise<void> {
    if (this.#ready === undefined) {
      const ready = setUpSchema(pool, this.#schema);
      this.#ready = ready;
      ready.catch(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
    }
    return this.#ready;
  }
}

/** pg's Pool class, imported on first use so that importing this module never needs pg. */
let poolClass: Promise<typeof Pool> | undefined;

function loadPoolClass(): Promise<typeof Pool> {
  poolClass ??= import('pg').then(
    (pg) => pg.default.Pool,
    (error: unknown) => {
      poolClass = undefined;
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
        throw new MissingDependencyError(NAME, 'pg', error);
      }
      throw error;
    },
  );
  return poolClass;
}

/**
 * A pool of the store's own; its connections run with the store's `synchronous_commit` (an
 * `options` in the connection string takes precedence; commits set it for themselves anyway).
 */
async function openPool(
  connectionString: string,
  connectionTimeoutMillis: number,
  synchronousCommit: 'on' | 'off',
): Promise<Pool> {
  const PoolClass = await loadPoolClass();
  const options = `-c synchronous_commit=${synchronousCommit}`;
  const pool = new PoolClass({ connectionString, connectionTimeoutMillis, options });
  // An idle client's error would otherwise crash the process; the next call meets it instead.
  pool.on('error', () => {});
  return pool;
}

function checkOptions(options: PostgresStoreOptions): PostgresStoreBaseOptions & {
  connectionString?: string;
  pool?: Pool;
} {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(NAME, 'options', 'an object with a connectionString or a pool', options);
  }
  const { connectionString, pool, schema, connectTimeoutMs } = options;
  if ((connectionString === undefined) === (pool === undefined)) {
    const received = connectionString === undefined ? 'neither' : 'both';
    throw new InvalidOptionError(
      NAME,
      'connectionString',
      'given, or else a pool (exactly one of them)',
      received,
    );
  }
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString === '')) {
    throw new InvalidOptionError(NAME, 'connectionString', 'a non-empty string', connectionString);
  }
  if (pool !== undefined && (typeof pool.query !== 'function' || typeof pool.connect !== 'function')) {
    throw new InvalidOptionError(NAME, 'pool', 'a pg Pool', pool);
  }
  if (schema !== undefined && (typeof schema !== 'string' || !IDENTIFIER.test(schema))) {
    throw new InvalidOptionError(NAME, 'schema', `an identifier matching ${IDENTIFIER}`, schema);
  }
  checkConnectTimeout(NAME, connectTimeoutMs);
  return options;
}

function toRecord(collection: string, executionId: string, row: RecordRow): StoredRecord {
  const value = decodeValue({ collection, executionId, key: row.key }, row.version, row.value);
  return { key: row.key, value, updatedAt: Number(row.updated_at) };
}

/** `host:port` of a connection string, for messages; never its user or password. */
function serverOf(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = url.searchParams.get('host') ?? (url.hostname || 'localhost');
    return `${host}:${url.port || '5432'}`;
  } catch {
    return 'the server of its connectionString';
  }
}

function sqlState(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/** Whether an error says the server cannot be reached (rather than that a statement failed). */
function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = sqlState(error);
  if (typeof code === 'string') {
    if (UNREACHABLE_ERRNOS.has(code) || UNAVAILABLE_STATES.has(code)) return true;
    if (UNAVAILABLE_CLASSES.test(code)) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message))) return true;
  const inner = error instanceof AggregateError ? error.errors : [];
  return [error.cause, ...inner].some((cause) => isUnavailable(cause, depth + 1));
}
