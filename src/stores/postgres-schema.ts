import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { SnapshotVersionError } from '../errors.js';
import type { HeadRow } from './run-head.js';
import {
  encodeValue,
  type RecordWrite,
  RUN_COLLECTIONS,
  STORE_COLLECTIONS,
  type StoreCollection,
} from './store.js';

/**
 * The tables of a {@link PostgresStore} schema and the SQL it runs on them. Version 1 had the record
 * tables; version 2 adds `runs` (one head per run), version 3 `run_events`, version 4 `run_threads`,
 * version 5 `eval_reports`. An older schema is upgraded in place.
 */
export const POSTGRES_SCHEMA_VERSION = 5;

/** The SQL of one collection's records ($1 execution id, $2 key, then version, value, updated_at). */
export interface RecordSql {
  put: string;
  insert: string;
  get: string;
  list: string;
  executions: string;
}

/** A statement sent as a named prepared statement: fixed text, parsed and planned once per connection. */
export interface PreparedSql {
  text: string;
  name: string;
}

/** The SQL of run heads. */
export interface RunSql {
  create: string;
  read: string;
  claim: string;
  renew: string;
  /**
   * A commit writing records to the collections at `collections` (indexes into STORE_COLLECTIONS,
   * ascending) and nothing else: with `moving`, it changes the head (a status, a release) and its
   * fence moves the head on; without, its fence checks the lease and locks the head against a claim.
   * One statement per shape, made once.
   */
  commit(moving: boolean, collections: readonly number[]): PreparedSql;
  /**
   * By collection (STORE_COLLECTIONS index), a commit of one record that leaves the head as it is (a
   * step's commit): the same fence as `commit(false, [collection])`, its record in scalar parameters;
   * its row count is 1 when the fence held.
   */
  commitRecord: readonly PreparedSql[];
  list: string;
  prune: string;
  /** A prune keeping history (`keepHistory`): the matched runs' kept events alone are deleted. */
  pruneEvents: string;
}

/** Every statement a store runs on its schema. */
export interface PostgresSql {
  records: Record<StoreCollection, RecordSql>;
  runs: RunSql;
}

/** The columns of a head, in the order `runs.create` takes them ($1…$11). */
const HEAD_COLUMN_NAMES = [
  'id',
  'kind',
  'name',
  'status',
  'version',
  'token',
  'expires_at',
  'owner',
  'data',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof HeadRow)[];
const HEAD_COLUMNS = HEAD_COLUMN_NAMES.join(', ');
/** The server's clock in epoch ms: what a lease's expiry is set and judged by. */
const SERVER_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';
/** The server's clock at the statement's start: one time for every row a prune looks at. */
const STATEMENT_MS = '(extract(epoch FROM now()) * 1000)::bigint';
/** The columns a head is read back with: its lease's time left on the server's clock too. */
const READ_COLUMNS = `${HEAD_COLUMNS}, expires_at - ${SERVER_MS} AS remaining_ms`;
/** A lease's expiry as a claim or renewal writes it: the server's now plus `ttl`, or `given` without one. */
const expiry = (given: string, ttl: string) =>
  `CASE WHEN ${ttl}::bigint IS NULL THEN ${given}::bigint ELSE ${SERVER_MS} + ${ttl}::bigint END`;
/** The columns of a record row, in the order its statements give them. */
export const RECORD_COLUMNS = 'execution_id, key, version, value, updated_at';
/** How a write meets an existing row: a new value, the same `seq`, so `list` keeps first-write order. */
export const REPLACE =
  'DO UPDATE SET version = EXCLUDED.version, value = EXCLUDED.value, updated_at = EXCLUDED.updated_at';

/** The parameters of `runs.create` for a head's row ($12: its lease's `ttlMs`, or null). */
export function headParams(row: HeadRow, ttlMs: number | undefined): unknown[] {
  return [...HEAD_COLUMN_NAMES.map((column) => row[column]), ttlMs ?? null];
}

/** A double-quoted SQL identifier. */
export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** Every statement on the tables of `schema` (a checked identifier). */
export function postgresSql(schema: string): PostgresSql {
  const name = (table: string) => `${quote(schema)}.${quote(table)}`;
  const records = Object.fromEntries(
    STORE_COLLECTIONS.map((collection) => [collection, recordSql(name(collection))]),
  ) as Record<StoreCollection, RecordSql>;
  const runs = name('runs');
  // The runs with a status in $1 whose head last changed before $2 and whose lease is not live, with
  // every record they own; the DELETE re-checks its WHERE on a row a heartbeat or claim just changed.
  const matched = `status = ANY($1::text[]) AND updated_at < $2::float8`;
  const live = `token IS NOT NULL AND expires_at > ${STATEMENT_MS}`;
  const pruneRecords = RUN_COLLECTIONS.map(
    (collection, i) =>
      `records_${i} AS (DELETE FROM ${name(collection)} WHERE execution_id IN (SELECT id FROM chosen))`,
  );
  return {
    records,
    runs: {
      create: `INSERT INTO ${runs} (${HEAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, ${expiry('$7', '$12')}, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
      read: `SELECT ${READ_COLUMNS} FROM ${runs} WHERE id = $1`,
      // A claim waiting on a heartbeat's row lock re-checks its WHERE on the renewed row.
      claim: `UPDATE ${runs} SET status = $3, version = version + 1, token = $4, expires_at = ${expiry('$5', '$8')}, owner = $6, updated_at = $7
        WHERE id = $1 AND version = $2 AND (token IS NULL OR expires_at <= ${SERVER_MS} OR token = $9::text)`,
      renew: `UPDATE ${runs} SET expires_at = ${expiry('$3', '$4')} WHERE id = $1 AND token = $2`,
      commit: commitShapes(name, runs),
      commitRecord: STORE_COLLECTIONS.map((c) => prepared(recordCommitSql(name(c), runs))),
      // Ids compared byte by byte (COLLATE "C"), as the other stores order them, whatever the database's collation.
      list: `SELECT ${READ_COLUMNS} FROM ${runs}
        WHERE ($1::text[] IS NULL OR status = ANY($1::text[])) AND ($2::text IS NULL OR name = $2)
          AND ($3::bigint IS NULL OR created_at >= $3) AND ($4::bigint IS NULL OR created_at < $4)
          AND ($5::bigint IS NULL OR created_at < $5 OR (created_at = $5 AND id COLLATE "C" < $6::text))
        ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $7::int`,
      prune: `WITH chosen AS (DELETE FROM ${runs} WHERE ${matched} AND NOT (${live}) RETURNING id),
        ${pruneRecords.join(',\n        ')}
        SELECT id, false AS kept FROM chosen
        UNION ALL SELECT id, true AS kept FROM ${runs} WHERE ${matched} AND ${live}`,
      // Keeping history: the chosen heads are locked (a heartbeat or claim waits, and the lock
      // re-checks the WHERE on a row one just changed) and only their kept events are deleted.
      pruneEvents: `WITH chosen AS (SELECT id FROM ${runs} WHERE ${matched} AND NOT (${live}) FOR UPDATE),
        dropped AS (DELETE FROM ${name('run_events')} WHERE execution_id IN (SELECT id FROM chosen))
        SELECT id, false AS kept FROM chosen
        UNION ALL SELECT id, true AS kept FROM ${runs} WHERE ${matched} AND ${live}`,
    },
  };
}

/**
 * A commit's records as (keys, values) text arrays per collection, in {@link STORE_COLLECTIONS}
 * order (the commit statement's parameters from $7 on), every value encoded before anything is sent
 * (`invalid_option` naming `store` for one JSON cannot carry). A key written twice keeps its first
 * place and its last value, as two puts would: one statement cannot upsert the same row twice.
 */
export function commitRecordParams(store: string, writes: readonly RecordWrite[]): string[][] {
  if (writes.length === 1) {
    const only = writes[0] as RecordWrite;
    const text = encodeValue(store, only.value);
    return STORE_COLLECTIONS.flatMap((c) => (c === only.collection ? [[only.key], [text]] : [[], []]));
  }
  const texts = writes.map((write) => encodeValue(store, write.value));
  const byCollection = new Map(STORE_COLLECTIONS.map((c) => [c, new Map<string, string>()]));
  writes.forEach((write, i) => {
    byCollection.get(write.collection)?.set(write.key, texts[i] as string);
  });
  return STORE_COLLECTIONS.flatMap((collection) => {
    const rows = byCollection.get(collection) ?? new Map<string, string>();
    return [[...rows.keys()], [...rows.values()]];
  });
}

function recordSql(table: string): RecordSql {
  const insert = `INSERT INTO ${table} (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (execution_id, key)`;
  return {
    put: `${insert} ${REPLACE}`,
    insert: `${insert} DO NOTHING`,
    get: `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = $1 AND key = $2`,
    list: `SELECT key, version, value, updated_at FROM ${table} WHERE execution_id = $1 ORDER BY seq`,
    executions: `SELECT DISTINCT execution_id COLLATE "C" AS id FROM ${table} ORDER BY id`,
  };
}

/** `text` with the name it is prepared under (a hash of the text, so a changed text is a new name). */
export function prepared(text: string): PreparedSql {
  return { text, name: `statecrew_commit_${createHash('sha256').update(text).digest('hex').slice(0, 32)}` };
}

/** The fence of a commit that changes the head: moves it on only while $2 holds its lease. */
function movingFence(runs: string): string {
  return `UPDATE ${runs} SET
        status = coalesce($3::text, status),
        version = version + CASE WHEN $3::text IS NULL THEN 0 ELSE 1 END,
        token = CASE WHEN $4::boolean THEN NULL ELSE token END,
        expires_at = CASE WHEN $4::boolean THEN NULL ELSE expires_at END,
        owner = CASE WHEN $4::boolean THEN NULL ELSE owner END,
        updated_at = $5::bigint
      WHERE id = $1::text AND token = $2::text
      RETURNING id`;
}

/**
 * The fence of a commit that only writes records: the head as it is, while $2 holds its lease,
 * locked FOR SHARE until the commit ends — a claim waits for it, and a commit that waited on a claim
 * re-checks the claimed row and finds the token gone. No new row version, no index entry.
 */
function checkingFence(runs: string): string {
  return `SELECT id FROM ${runs}
      WHERE id = $1::text AND token = $2::text AND $3::text IS NULL AND NOT $4::boolean
      FOR SHARE`;
}

/** The commit statements of every shape, each made on first use. */
function commitShapes(
  name: (table: string) => string,
  runs: string,
): (moving: boolean, collections: readonly number[]) => PreparedSql {
  const made = new Map<string, PreparedSql>();
  return (moving, collections) => {
    const shape = `${moving}:${collections.join(',')}`;
    let sql = made.get(shape);
    if (sql === undefined) {
      const fence = moving ? movingFence(runs) : checkingFence(runs);
      sql = prepared(commitSql(name, fence, collections));
      made.set(shape, sql);
    }
    return sql;
  };
}

/**
 * A commit as one statement: the fence (a CTE) holds only while $2 holds the run's lease, and every
 * upsert reads the fence's row, so it writes nothing when the fence did not hold. Under READ
 * COMMITTED a fence that waited on a claim re-checks its WHERE on the claimed row, so a commit
 * racing a takeover writes nothing. Parameters: $1 id, $2 token, $3 status or null, $4 release,
 * $5 updated_at, $6 format version, then (keys, values) text arrays per collection written (the
 * STORE_COLLECTIONS indexes `collections`, in order: a collection not written has no upsert), then
 * `synchronous_commit` for its transaction ('on' or 'off'); every parameter is read (a statement
 * that writes nothing still types $5 and $6). It resolves one row: `held`, 1 if the fence held, else 0.
 */
function commitSql(name: (table: string) => string, fence: string, collections: readonly number[]): string {
  const upserts = collections.map((c, i) => {
    const collection = STORE_COLLECTIONS[c] as StoreCollection;
    const keys = 7 + 2 * i;
    return `writes_${i} AS (
      INSERT INTO ${name(collection)} (${RECORD_COLUMNS})
      SELECT fence.id, w.key, $6::integer, w.value, $5::bigint
      FROM fence CROSS JOIN unnest($${keys}::text[], $${keys + 1}::text[]) WITH ORDINALITY AS w (key, value, ord)
      ORDER BY w.ord
      ON CONFLICT (execution_id, key) ${REPLACE}
    )`;
  });
  const ctes = [`fence AS (\n      ${fence}\n    )`, ...upserts];
  return `WITH ${ctes.join(',\n    ')}
    SELECT (SELECT count(*)::integer FROM fence) AS held, ${synchronousCommit(7 + 2 * collections.length)},
      $5::bigint AS at, $6::integer AS format`;
}

/**
 * A commit of one record that leaves the head as it is, as one plain INSERT … SELECT (no CTE, which
 * costs PostgreSQL about a quarter more per statement): the record is selected from the head's row
 * only while $2 holds its lease, locking that row FOR SHARE, so it writes nothing when the fence did
 * not hold. Under READ COMMITTED a fence that waited on a claim re-checks its WHERE on the claimed
 * row, so a commit racing a takeover writes nothing. The WHERE also sets `synchronous_commit` for the
 * statement's transaction (`set_config` is volatile: it runs for the row that holds, before the
 * write). Parameters: $1 id, $2 token, $3 key, $4 value, $5 updated_at, $6 format version, $7
 * `synchronous_commit`. Its row count is 1 when the fence held (the upsert always writes), else 0.
 */
function recordCommitSql(table: string, runs: string): string {
  return `INSERT INTO ${table} (${RECORD_COLUMNS})
    SELECT r.id, $3::text, $6::integer, $4::text, $5::bigint FROM ${runs} AS r
    WHERE r.id = $1::text AND r.token = $2::text
      AND set_config('synchronous_commit', $7::text, true) IS NOT NULL
    FOR SHARE OF r
    ON CONFLICT (execution_id, key) ${REPLACE}`;
}

/**
 * Sets `synchronous_commit` for the statement's own transaction to parameter `$at` ('on' or 'off'):
 * what the commit survives is the store's choice, whatever the connection's setting.
 */
function synchronousCommit(at: number): string {
  return `set_config('synchronous_commit', $${at}::text, true) AS synchronous_commit`;
}

/**
 * Makes sure `schema` holds the current tables: nothing to do (and no right to create anything
 * needed) when it does; otherwise creates them, or upgrades an older schema (the tables added since
 * are created), in one transaction.
 * A schema of a newer version is refused (`snapshot_version`).
 */
export async function setUpSchema(pool: Pool, schema: string): Promise<void> {
  const version = await schemaVersion(pool, schema);
  if (version === POSTGRES_SCHEMA_VERSION) return;
  checkUpgradable(schema, version);
  await inLockedTransaction(pool, schema, async (client) => {
    const locked = await schemaVersion(client, schema);
    if (locked === POSTGRES_SCHEMA_VERSION) return;
    checkUpgradable(schema, locked);
    await client.query(ddl(schema));
  });
}

/** The layout version `schema` records, or undefined when it has no store_meta table (yet). */
async function schemaVersion(db: Pool | PoolClient, schema: string): Promise<string | number | undefined> {
  const meta = `${quote(schema)}.${quote('store_meta')}`;
  // to_regclass instead of catching "no such table": an error would abort the setup's transaction.
  const { rows } = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    meta,
  ]);
  if (rows[0]?.present !== true) return undefined;
  const found = await db.query<{ value: string }>(`SELECT value FROM ${meta} WHERE name = $1`, [
    'schema_version',
  ]);
  const value = found.rows[0]?.value;
  if (value === undefined) return undefined;
  return /^[0-9]+$/.test(value) ? Number(value) : value;
}

/**
 * A schema this code can create or upgrade: none yet, 1, 2 (before `run_events`), 3 (before
 * `run_threads`) or 4 (before `eval_reports`).
 */
function checkUpgradable(schema: string, version: string | number | undefined): void {
  if (version !== undefined && ![1, 2, 3, 4].includes(version as number)) {
    throw new SnapshotVersionError(`PostgreSQL schema "${schema}" (its store_meta schema_version)`, version);
  }
}

/**
 * Runs `work` in a transaction holding the schema's advisory lock. `IF NOT EXISTS` alone can still
 * race in PostgreSQL (two sessions both insert the catalog row), so setups of one schema take turns.
 */
async function inLockedTransaction(
  pool: Pool,
  schema: string,
  work: (client: PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  // Between statements no query is listening; an error there must not crash the process.
  const ignore = (): void => {};
  client.on('error', ignore);
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`statecrew:${schema}`]);
    await work(client);
    await client.query('COMMIT');
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

/** Creates every missing table of the current layout and records its version (idempotent). */
function ddl(schema: string): string {
  const name = (table: string) => `${quote(schema)}.${quote(table)}`;
  const tables = STORE_COLLECTIONS.map(
    (collection) => `
      CREATE TABLE IF NOT EXISTS ${name(collection)} (
        execution_id TEXT NOT NULL,
        key TEXT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        version INTEGER NOT NULL,
        value TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (execution_id, key)
      );
      CREATE INDEX IF NOT EXISTS ${quote(`${collection}_seq`)} ON ${name(collection)} (execution_id, seq);`,
  );
  return `
    CREATE SCHEMA IF NOT EXISTS ${quote(schema)};
    ${tables.join('\n')}
    CREATE TABLE IF NOT EXISTS ${name('runs')} (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      status TEXT NOT NULL,
      version INTEGER NOT NULL,
      token TEXT NULL,
      expires_at BIGINT NULL,
      owner TEXT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${quote('runs_status')} ON ${name('runs')} (status, updated_at);
    CREATE TABLE IF NOT EXISTS ${name('store_meta')} (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO ${name('store_meta')} (name, value) VALUES ('schema_version', '${POSTGRES_SCHEMA_VERSION}')
      ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;`;
}
