import type BetterSqlite3 from 'better-sqlite3';
import { SnapshotVersionError } from '../errors.js';
import { type FencedCommits, fencedCommits } from './sqlite-commit.js';
import { STORE_COLLECTIONS, type StoreCollection } from './store.js';

/**
 * The tables of a {@link SqliteStore} file and the statements it runs on them. Version 1 had the
 * record tables; version 2 added `runs` (one head per run); version 3 numbers records without
 * `AUTOINCREMENT` (its counter was one more page written by every commit; `seq` still only grows
 * while a record of its run exists); version 5 adds the `run_threads` table; version 6 the
 * `eval_reports` table. Older files are upgraded in place.
 */
export const SQLITE_SCHEMA_VERSION = 6;

/** The statements on one collection's records. */
export interface RecordStatements {
  put: BetterSqlite3.Statement;
  /** `put` only while the run's lease carries the token: `{ id, key, version, value, at, token }`. */
  fencedPut: BetterSqlite3.Statement;
  insert: BetterSqlite3.Statement;
  get: BetterSqlite3.Statement;
  list: BetterSqlite3.Statement;
  executions: BetterSqlite3.Statement;
  /** Deletes the records of the runs a prune chooses (`{ statuses, before }`). */
  prune: BetterSqlite3.Statement;
}

/** The statements on run heads. */
export interface HeadStatements {
  create: BetterSqlite3.Statement;
  read: BetterSqlite3.Statement;
  claim: BetterSqlite3.Statement;
  renew: BetterSqlite3.Statement;
  /** The fence of a commit that changes the head: moves it on only while the token holds. */
  fence: BetterSqlite3.Statement;
  /** The fence of a commit that only writes records: whether the token holds (`(id, token)`). */
  held: BetterSqlite3.Statement;
  /** The heads a listing matches (`RunListing` as `{ statuses (JSON), name, from, before, after_at, after_id, limit }`). */
  list: BetterSqlite3.Statement;
  /** The runs a prune chooses (`{ statuses, before, now }`), those it keeps back as live, and their deletion. */
  pruned: BetterSqlite3.Statement;
  kept: BetterSqlite3.Statement;
  prune: BetterSqlite3.Statement;
}

/** Every statement a store prepares once per connection. */
export interface SqliteStatements extends FencedCommits {
  records: Map<StoreCollection, RecordStatements>;
  heads: HeadStatements;
}

const RECORD_COLUMNS = 'execution_id, key, version, value, updated_at';
const HEAD_COLUMNS =
  'id, kind, name, status, version, token, expires_at, owner, data, created_at, updated_at';
/** The runs a listing matches; `@after_at`/`@after_id` is where its page starts, newest first. */
const LISTED = `(@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
  AND (@name IS NULL OR name = @name)
  AND (@from IS NULL OR created_at >= @from)
  AND (@before IS NULL OR created_at < @before)
  AND (@after_at IS NULL OR created_at < @after_at OR (created_at = @after_at AND id < @after_id))`;
/** The runs a prune matches: statuses as a JSON array (`@statuses`), last change before `@before`. */
const MATCHED = 'status IN (SELECT value FROM json_each(@statuses)) AND updated_at < @before';
/** A lease live at `@now` (the writer's clock, checked in the same transaction as the write). */
const LIVE = 'token IS NOT NULL AND expires_at > @now';
/** The runs a prune deletes: those it matches whose lease is not live. */
const PRUNED = `${MATCHED} AND NOT (${LIVE})`;

const recordTable = (table: string) => `
  CREATE TABLE IF NOT EXISTS "${table}" (
    seq INTEGER PRIMARY KEY,
    execution_id TEXT NOT NULL,
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (execution_id, key)
  )`;

const RUNS_TABLE = `
  CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    token TEXT,
    expires_at INTEGER,
    owner TEXT,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS runs_status ON runs (status, updated_at)`;

/**
 * Creates the tables of a new file, or upgrades an older one, in one immediate transaction (safe
 * against another process doing the same); a file of a newer version is refused (`snapshot_version`).
 */
export function migrate(db: BetterSqlite3.Database, path: string): void {
  const read = () => db.pragma('user_version', { simple: true }) as number;
  if (read() === SQLITE_SCHEMA_VERSION) return;
  db.transaction(() => {
    const version = read();
    if (version === SQLITE_SCHEMA_VERSION) return;
    if (![0, 1, 2, 3, 4, 5].includes(version)) {
      throw new SnapshotVersionError(`SQLite file ${path} (its user_version)`, version);
    }
    for (const collection of STORE_COLLECTIONS) {
      if ((version === 1 || version === 2) && hasTable(db, collection)) renumberRecords(db, collection);
      // IF NOT EXISTS: a new file's tables, and the collections added since the file's version.
      db.exec(recordTable(collection));
    }
    db.exec(RUNS_TABLE);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
  }).immediate();
}

/** Whether the file has a table of that name. */
function hasTable(db: BetterSqlite3.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Rebuilds a collection's table of an older file without `AUTOINCREMENT`, every record keeping its `seq`. */
function renumberRecords(db: BetterSqlite3.Database, collection: string): void {
  const rebuilt = `${collection}__v3`;
  db.exec(recordTable(rebuilt));
  db.exec(
    `INSERT INTO "${rebuilt}" (seq, execution_id, key, version, value, updated_at) SELECT seq, execution_id, key, version, value, updated_at FROM "${collection}"`,
  );
  db.exec(`DROP TABLE "${collection}"`);
  db.exec(`ALTER TABLE "${rebuilt}" RENAME TO "${collection}"`);
}

/** Prepares every statement of a migrated file. */
export function prepareStatements(db: BetterSqlite3.Database): SqliteStatements {
  const records = new Map<StoreCollection, RecordStatements>();
  for (const collection of STORE_COLLECTIONS)
    records.set(collection, recordStatements(db, `"${collection}"`));
  const heads = headStatements(db);
  return { records, heads, ...fencedCommits(db, records, heads) };
}

/** The statements on one collection's records (`table`, quoted). */
function recordStatements(db: BetterSqlite3.Database, table: string): RecordStatements {
  return {
    put: db.prepare(
      `INSERT INTO ${table} (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (execution_id, key) DO UPDATE SET version = excluded.version, value = excluded.value, updated_at = excluded.updated_at`,
    ),
    insert: db.prepare(
      `INSERT INTO ${table} (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    fencedPut: db.prepare(
      `INSERT INTO ${table} (${RECORD_COLUMNS}) SELECT @id, @key, @version, @value, @at WHERE EXISTS (SELECT 1 FROM runs WHERE id = @id AND token = @token) ON CONFLICT (execution_id, key) DO UPDATE SET version = excluded.version, value = excluded.value, updated_at = excluded.updated_at`,
    ),
    get: db.prepare(
      `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = ? AND key = ?`,
    ),
    list: db.prepare(
      `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = ? ORDER BY seq`,
    ),
    executions: db.prepare(`SELECT DISTINCT execution_id FROM ${table}`),
    prune: db.prepare(`DELETE FROM ${table} WHERE execution_id IN (SELECT id FROM runs WHERE ${PRUNED})`),
  };
}

/** The statements on run heads. */
function headStatements(db: BetterSqlite3.Database): HeadStatements {
  return {
    create: db.prepare(
      `INSERT INTO runs (${HEAD_COLUMNS}) VALUES (@id, @kind, @name, @status, @version, @token, @expires_at, @owner, @data, @created_at, @updated_at) ON CONFLICT DO NOTHING`,
    ),
    read: db.prepare(`SELECT ${HEAD_COLUMNS} FROM runs WHERE id = ?`),
    claim: db.prepare(
      `UPDATE runs SET status = @status, version = version + 1, token = @token, expires_at = @expires_at, owner = @owner, updated_at = @updated_at WHERE id = @id AND version = @expected AND (NOT (${LIVE}) OR token = @replaces)`,
    ),
    renew: db.prepare('UPDATE runs SET expires_at = ? WHERE id = ? AND token = ?'),
    fence: db.prepare(
      `UPDATE runs SET
           status = coalesce(@status, status),
           version = version + (@status IS NOT NULL),
           token = CASE WHEN @release THEN NULL ELSE token END,
           expires_at = CASE WHEN @release THEN NULL ELSE expires_at END,
           owner = CASE WHEN @release THEN NULL ELSE owner END,
           updated_at = @updated_at
         WHERE id = @id AND token = @token`,
    ),
    held: db.prepare('SELECT 1 FROM runs WHERE id = ? AND token = ?'),
    list: db.prepare(
      `SELECT ${HEAD_COLUMNS} FROM runs WHERE ${LISTED} ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ),
    pruned: db.prepare(`SELECT id FROM runs WHERE ${PRUNED}`),
    kept: db.prepare(`SELECT id FROM runs WHERE ${MATCHED} AND ${LIVE}`),
    prune: db.prepare(`DELETE FROM runs WHERE ${PRUNED}`),
  };
}
