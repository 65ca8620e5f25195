import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
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

/** Options of a {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database file (created with its directory if missing), or `':memory:'`.
   * @default the `STATECREW_DB` environment variable, else `.statecrew/statecrew.db` under the working directory
   */
  path?: string | undefined;
  /** How long a write waits for another process's write to finish, in ms. @default 5000 */
  busyTimeoutMs?: number | undefined;
}

/** The version of the tables this store creates, kept in the file's `user_version`. */
const SCHEMA_VERSION = 1;

/** The database file a store opens when it is given no path. */
export function defaultSqlitePath(): string {
  return resolve(process.env.STATECREW_DB ?? '.statecrew/statecrew.db');
}

interface Statements {
  put: BetterSqlite3.Statement;
  insert: BetterSqlite3.Statement;
  get: BetterSqlite3.Statement;
  list: BetterSqlite3.Statement;
  executions: BetterSqlite3.Statement;
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
  readonly #open = new OpenState('SqliteStore');
  #db: BetterSqlite3.Database | undefined;
  #statements: Map<StoreCollection, Statements> | undefined;

  constructor(options: SqliteStoreOptions = {}) {
    if (options.path !== undefined && (typeof options.path !== 'string' || options.path === '')) {
      throw new InvalidOptionError(
        'SqliteStore',
        'path',
        'a non-empty file path or ":memory:"',
        options.path,
      );
    }
    const busy = options.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busy) || busy < 0) {
      throw new InvalidOptionError('SqliteStore', 'busyTimeoutMs', 'an integer ≥ 0', busy);
    }
    this.path = options.path === ':memory:' ? ':memory:' : resolve(options.path ?? defaultSqlitePath());
    this.#busyTimeoutMs = busy;
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    const text = this.#checked(collection, executionId, key, value);
    this.#prepared(collection).put.run(executionId, key, STORE_FORMAT_VERSION, text, Date.now());
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    const text = this.#checked(collection, executionId, key, value);
    return (
      this.#prepared(collection).insert.run(executionId, key, STORE_FORMAT_VERSION, text, Date.now())
        .changes === 1
    );
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const row = this.#prepared(collection).get.get(executionId, key) as Row | undefined;
    return row === undefined ? undefined : toRecord(collection, executionId, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const rows = this.#prepared(collection).list.all(executionId) as Row[];
    return rows.map((row) => toRecord(collection, executionId, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const rows = this.#prepared(collection).executions.all() as { execution_id: string }[];
    // SQLite sorts UTF-8 bytes; the contract is JavaScript's order of strings.
    return rows.map((r) => r.execution_id).sort();
  }

  async close(): Promise<void> {
    this.#open.close();
    this.#statements = undefined;
    this.#db?.close();
    this.#db = undefined;
  }

  #checked(collection: StoreCollection, executionId: string, key: string, value: JsonValue): string {
    this.#open.use(collection, executionId, key);
    return encodeValue('SqliteStore', value);
  }

  #prepared(collection: StoreCollection): Statements {
    const statements = this.#statements ?? this.#connect();
    return statements.get(collection) as Statements;
  }

  /** Opens the file, creates the tables if this is a new file, and prepares every statement. */
  #connect(): Map<StoreCollection, Statements> {
    let db: BetterSqlite3.Database;
    try {
      if (this.path !== ':memory:') mkdirSync(dirname(this.path), { recursive: true });
      db = new (loadDriver())(this.path, { timeout: this.#busyTimeoutMs });
      db.pragma('journal_mode = WAL');
    } catch (error) {
      throw new StoreUnavailableError('SqliteStore', this.path, error);
    }
    try {
      migrate(db, this.path);
    } catch (error) {
      db.close();
      throw error;
    }
    const statements = new Map<StoreCollection, Statements>();
    for (const collection of STORE_COLLECTIONS) {
      const table = `"${collection}"`;
      const columns = 'execution_id, key, version, value, updated_at';
      statements.set(collection, {
        put: db.prepare(
          `INSERT INTO ${table} (${columns}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (execution_id, key) DO UPDATE SET version = excluded.version, value = excluded.value, updated_at = excluded.updated_at`,
        ),
        insert: db.prepare(`INSERT INTO ${table} (${columns}) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
        get: db.prepare(
          `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = ? AND key = ?`,
        ),
        list: db.prepare(
          `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = ? ORDER BY seq`,
        ),
        executions: db.prepare(`SELECT DISTINCT execution_id FROM ${table}`),
      });
    }
    this.#db = db;
    this.#statements = statements;
    return statements;
  }
}

/** better-sqlite3, loaded the first time a store opens its file. */
let driver: typeof BetterSqlite3 | undefined;
function loadDriver(): typeof BetterSqlite3 {
  driver ??= requireDriver();
  return driver;
}

function requireDriver(): typeof BetterSqlite3 {
  return createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
}

/** Creates the tables of a new file (in one transaction, safe against another process doing the same). */
function migrate(db: BetterSqlite3.Database, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION) return;
  if (version !== 0) throw new SnapshotVersionError(`SQLite file ${path} (its user_version)`, version);
  db.transaction(() => {
    for (const collection of STORE_COLLECTIONS) {
      db.exec(
        `CREATE TABLE IF NOT EXISTS "${collection}" (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          execution_id TEXT NOT NULL,
          key TEXT NOT NULL,
          version INTEGER NOT NULL,
          value TEXT NOT NULL,
          updated_at INTEGER NOT NULL,
          UNIQUE (execution_id, key)
        )`,
      );
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

function toRecord(collection: string, executionId: string, row: Row): StoredRecord {
  const value = decodeValue({ collection, executionId, key: row.key }, row.version, row.value);
  return { key: row.key, value, updatedAt: row.updated_at };
}
