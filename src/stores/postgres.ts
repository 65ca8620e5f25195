import type { Pool, PoolClient, QueryResultRow } from 'pg';
import pg from 'pg';
import { InvalidOptionError, SnapshotVersionError, StoreUnavailableError } from '../errors.js';
import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  STORE_COLLECTIONS,
  STORE_FORMAT_VERSION,
  type Store,
  type StoreCollection,
  type StoredRecord,
} from './store.js';

const NAME = 'PostgresStore';
/** The layout of the tables this file creates; a schema of another layout is refused. */
const SCHEMA_VERSION = 1;
/** How `put` meets an existing row: a new value, the same `seq`, so `list` keeps first-write order. */
const REPLACE =
  'DO UPDATE SET version = EXCLUDED.version, value = EXCLUDED.value, updated_at = EXCLUDED.updated_at';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** SQLSTATEs of a server that is going away or refuses connections (besides class 08). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
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
 * A store in PostgreSQL: one table per collection in its own schema, created on first use. Values
 * are kept as JSON text so they read back exactly; `list` keeps first-write order. Calls fail with
 * `store_unavailable` when the server cannot be reached, after at most `connectTimeoutMs`.
 *
 * @example
 * const store = new PostgresStore({ connectionString: 'postgres://127.0.0.1:5432/test', schema: 'statecrew' });
 * // or, sharing a pool of yours (not ended by close): new PostgresStore({ pool })
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly #open = new OpenState(NAME);
  readonly #schema: string;
  readonly #where: string;
  readonly #connectionString: string | undefined;
  readonly #connectTimeoutMs: number;
  #pool: Pool | undefined;
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions) {
    const { connectionString, pool, schema = 'statecrew', connectTimeoutMs = 5000 } = checkOptions(options);
    this.#schema = schema;
    this.#connectTimeoutMs = connectTimeoutMs;
    this.#connectionString = connectionString;
    this.#pool = pool;
    this.#where = connectionString === undefined ? 'the pool' : serverOf(connectionString);
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    await this.#write(collection, executionId, key, value, REPLACE);
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return (await this.#write(collection, executionId, key, value, 'DO NOTHING')) === 1;
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const { rows } = await this.#query<RecordRow>(
      `SELECT key, version, value, updated_at FROM ${this.#table(collection)} WHERE execution_id = $1 AND key = $2`,
      [executionId, key],
    );
    const row = rows[0];
    return row === undefined ? undefined : toRecord(collection, executionId, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const { rows } = await this.#query<RecordRow>(
      `SELECT key, version, value, updated_at FROM ${this.#table(collection)} WHERE execution_id = $1 ORDER BY seq`,
      [executionId],
    );
    return rows.map((row) => toRecord(collection, executionId, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const { rows } = await this.#query<{ id: string }>(
      `SELECT DISTINCT execution_id COLLATE "C" AS id FROM ${this.#table(collection)} ORDER BY id`,
      [],
    );
    // "C" orders by code point, JavaScript by UTF-16 unit: they differ past U+FFFF, so sort as JS does.
    return rows.map((row) => row.id).sort();
  }

  async close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#open.close();
      const owned = this.#connectionString !== undefined ? this.#pool : undefined;
      this.#closing = owned === undefined ? Promise.resolve() : owned.end();
    }
    await this.#closing;
  }

  async #write(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
    onConflict: string,
  ): Promise<number> {
    this.#open.use(collection, executionId, key);
    const text = encodeValue(NAME, value);
    const { rowCount } = await this.#query(
      `INSERT INTO ${this.#table(collection)} (execution_id, key, version, value, updated_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (execution_id, key) ${onConflict}`,
      [executionId, key, STORE_FORMAT_VERSION, text, Date.now()],
    );
    return rowCount ?? 0;
  }

  /** Runs one parameterised statement once the tables exist, naming an unreachable server as such. */
  async #query<R extends QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    const pool = this.#connect();
    try {
      await this.#initialise(pool);
      return await pool.query<R>(sql, params);
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailableError(NAME, this.#where, error) : error;
    }
  }

  #connect(): Pool {
    if (this.#pool === undefined) {
      this.#pool = new pg.Pool({
        connectionString: this.#connectionString,
        connectionTimeoutMillis: this.#connectTimeoutMs,
      });
      // An idle client's error would otherwise crash the process; the next call meets it instead.
      this.#pool.on('error', () => {});
    }
    return this.#pool;
  }

  /** One setup per store object, shared by concurrent calls; a failed setup is tried again next call. */
  #initialise(pool: Pool): Promise<void> {
    if (this.#ready === undefined) {
      const ready = this.#setUp(pool);
      this.#ready = ready;
      ready.catch(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
    }
    return this.#ready;
  }

  async #setUp(pool: Pool): Promise<void> {
    const version = (await this.#schemaVersion(pool)) ?? (await this.#createTables(pool));
    if (version !== SCHEMA_VERSION) {
      throw new SnapshotVersionError(
        `PostgreSQL schema "${this.#schema}" (its store_meta schema_version)`,
        version,
      );
    }
  }

  /** The layout version of an existing schema, without needing the right to create anything. */
  async #schemaVersion(pool: Pool | PoolClient): Promise<number | undefined> {
    try {
      const { rows } = await pool.query<{ value: string }>(
        `SELECT value FROM ${this.#name('store_meta')} WHERE name = $1`,
        ['schema_version'],
      );
      return rows[0] === undefined ? undefined : Number(rows[0].value);
    } catch (error) {
      // 3F000: no such schema; 42P01: no such table. Anything else is a real failure.
      if (sqlState(error) === '3F000' || sqlState(error) === '42P01') return undefined;
      throw error;
    }
  }

  /**
   * Creates the schema and its tables in one transaction. `IF NOT EXISTS` alone can still race in
   * PostgreSQL (two sessions both insert the catalog row), so setups of one schema take turns on an
   * advisory lock.
   */
  async #createTables(pool: Pool): Promise<number | undefined> {
    const client = await pool.connect();
    // Between statements no query is listening; an error there must not crash the process.
    const ignore = (): void => {};
    client.on('error', ignore);
    let broken = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `statecrew:${this.#schema}`,
      ]);
      await client.query(this.#ddl());
      const version = await this.#schemaVersion(client);
      await client.query('COMMIT');
      return version;
    } catch (error) {
      broken = true;
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.removeListener('error', ignore);
      // A client whose setup failed is in an unknown state: drop it rather than reuse it.
      client.release(broken);
    }
  }

  #ddl(): string {
    const tables = STORE_COLLECTIONS.map(
      (collection) => `
      CREATE TABLE IF NOT EXISTS ${this.#table(collection)} (
        execution_id TEXT NOT NULL,
        key TEXT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        version INTEGER NOT NULL,
        value TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (execution_id, key)
      );
      CREATE INDEX IF NOT EXISTS ${quote(`${collection}_seq`)} ON ${this.#table(collection)} (execution_id, seq);`,
    );
    return `
      CREATE SCHEMA IF NOT EXISTS ${quote(this.#schema)};
      ${tables.join('\n')}
      CREATE TABLE IF NOT EXISTS ${this.#name('store_meta')} (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO ${this.#name('store_meta')} (name, value) VALUES ('schema_version', '${SCHEMA_VERSION}')
        ON CONFLICT (name) DO NOTHING;`;
  }

  /** A collection's table: `checkAddress` lets only the fixed {@link STORE_COLLECTIONS} through. */
  #table(collection: StoreCollection): string {
    return this.#name(collection);
  }

  #name(table: string): string {
    return `${quote(this.#schema)}.${quote(table)}`;
  }
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
  if (
    connectTimeoutMs !== undefined &&
    (typeof connectTimeoutMs !== 'number' || !Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0)
  ) {
    throw new InvalidOptionError(
      NAME,
      'connectTimeoutMs',
      'a positive number of milliseconds',
      connectTimeoutMs,
    );
  }
  return options;
}

function toRecord(collection: string, executionId: string, row: RecordRow): StoredRecord {
  const value = decodeValue({ collection, executionId, key: row.key }, row.version, row.value);
  return { key: row.key, value, updatedAt: Number(row.updated_at) };
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
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
    if (UNAVAILABLE_ERRNOS.has(code) || UNAVAILABLE_STATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message))) return true;
  const inner = error instanceof AggregateError ? error.errors : [];
  return [error.cause, ...inner].some((cause) => isUnavailable(cause, depth + 1));
}
