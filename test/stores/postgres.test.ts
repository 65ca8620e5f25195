import { execFileSync } from 'node:child_process';
import type { Pool } from 'pg';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { StatecrewError } from '../../src/errors.js';
import { PostgresStore, type PostgresStoreOptions } from '../../src/stores/postgres.js';
import { head, lease } from '../contracts/run-store.contract.js';
import { storeContract } from '../contracts/store.contract.js';
import { built, loadedBy } from '../helpers.js';
import { codeOf } from '../store-helpers.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432/test';
/** Nothing listens on port 1. */
const NOWHERE = 'postgres://postgres@127.0.0.1:1/test';

const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices)
  console.log('PostgresStore tests skipped: STATECREW_NO_SERVICES=1 says no PostgreSQL server is running');
describe.skipIf(noServices)('PostgresStore on the server at 127.0.0.1:5432', () => postgresTests());

describe('PostgresStore without pg', () => {
  const modulePath = built('stores/postgres.js');

  it('is imported without loading pg', () => {
    expect(loadedBy(built('stores/postgres.js'))).toEqual([]);
  });

  it('is imported when pg is not installed, and its calls reject with missing_dependency', () => {
    // Module hooks that answer for pg as Node does for a package that is not installed.
    const hooks = `export async function resolve(specifier, context, next) {
      if (specifier !== 'pg') return next(specifier, context);
      throw Object.assign(new Error("Cannot find package 'pg'"), { code: 'ERR_MODULE_NOT_FOUND' });
    }`;
    const register = `import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`;
    const script = `const { PostgresStore } = await import(process.argv[1]);
      const store = new PostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
      const refusal = (e) => ({ code: e.code, package: e.details?.package });
      const calls = [store.readRun('r'), store.put('flow_runs', 'r', 'run', 1)];
      console.log(JSON.stringify(await Promise.all(calls.map((c) => c.then(() => 'resolved', refusal)))));`;
    const imports = ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
    const printed = execFileSync(
      process.execPath,
      [...imports, '--input-type=module', '-e', script, modulePath],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(printed.trim().split('\n').at(-1) as string)).toEqual([
      { code: 'missing_dependency', package: 'pg' },
      { code: 'missing_dependency', package: 'pg' },
    ]);
  });
});

function postgresTests(): void {
  /** A connection of the tests' own, beside the stores under test. */
  const admin = new pg.Pool({ connectionString: SERVER, max: 2 });
  afterAll(() => admin.end());

  let serial = 0;
  let schema = '';

  /** A schema name no other test file or run uses; a leftover of a killed run is dropped first. */
  async function freshSchema(): Promise<string> {
    serial += 1;
    const name = `statecrew_test_${process.pid}_${serial}`;
    await dropSchema(name);
    return name;
  }

  async function dropSchema(name: string): Promise<void> {
    await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  }

  storeContract('PostgresStore', {
    durable: true,
    async open() {
      schema = await freshSchema();
      return new PostgresStore({ connectionString: SERVER, schema });
    },
    async reopen() {
      return new PostgresStore({ connectionString: SERVER, schema });
    },
    async writeRaw(store, collection, executionId, key, version, text) {
      await store.list(collection, executionId); // the store creates its tables first
      await admin.query(
        `INSERT INTO "${schema}"."${collection}" (execution_id, key, version, value, updated_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [executionId, key, version, text, 0],
      );
    },
    async unreachable() {
      return new PostgresStore({ connectionString: NOWHERE, schema: 'statecrew_unreachable' });
    },
    async cleanup() {
      await dropSchema(schema);
    },
  });

  runHeadTests({ admin, freshSchema, dropSchema });

  describe('PostgresStore', () => {
    it('refuses a bad schema, connection or timeout option, naming it (invalid_option)', () => {
      const schemas = ['bad-name', '1st', '', 'a'.repeat(64), 'x"; DROP SCHEMA public; --'];
      for (const bad of schemas) {
        expect(refusal(() => new PostgresStore({ connectionString: SERVER, schema: bad }))).toEqual({
          code: 'invalid_option',
          option: 'schema',
        });
      }
      const neither = {} as PostgresStoreOptions;
      // @ts-expect-error a connection string and a pool are exclusive
      const both: PostgresStoreOptions = { connectionString: SERVER, pool: admin };
      for (const options of [neither, both]) {
        expect(refusal(() => new PostgresStore(options))).toEqual({
          code: 'invalid_option',
          option: 'connectionString',
        });
      }
      for (const connectTimeoutMs of [0, -1, Number.NaN]) {
        expect(refusal(() => new PostgresStore({ connectionString: SERVER, connectTimeoutMs }))).toEqual({
          code: 'invalid_option',
          option: 'connectTimeoutMs',
        });
      }
      expect(new PostgresStore({ connectionString: SERVER, schema: 'A_valid_1' }).kind).toBe('postgres');
    });

    it('leaves a pool of yours open on close, and names the pool when it cannot reach the server', async () => {
      const pool = new pg.Pool({ connectionString: SERVER });
      const nowhere = new pg.Pool({ connectionString: NOWHERE, connectionTimeoutMillis: 2000 });
      const name = await freshSchema();
      try {
        const store = new PostgresStore({ pool, schema: name });
        await store.put('flow_runs', 'r', 'run', { ok: true });
        await store.close();
        await store.close();
        expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

        const lost = new PostgresStore({ pool: nowhere, schema: name });
        const error = await lost.get('flow_runs', 'r', 'run').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StatecrewError);
        expect((error as StatecrewError).code).toBe('store_unavailable');
        expect((error as Error).message).toContain('the pool');
        await lost.close();
      } finally {
        await Promise.all([pool.end(), nowhere.end(), dropSchema(name)]);
      }
    });

    it('creates its tables once, even when several stores set up a fresh schema at once', async () => {
      const name = await freshSchema();
      const stores = Array.from(
        { length: 4 },
        () => new PostgresStore({ connectionString: SERVER, schema: name }),
      );
      try {
        await Promise.all(stores.map((store, i) => store.put('crew_task_results', 'e', `k${i}`, i)));
        const claims = await Promise.all(stores.map((store) => store.insert('flow_runs', 'r', 'run', 1)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect((await stores[0]?.list('crew_task_results', 'e'))?.map((r) => r.value).sort()).toEqual([
          0, 1, 2, 3,
        ]);
        const { rows } = await admin.query<{ table_name: string; data_type: string }>(
          `SELECT table_name, data_type FROM information_schema.columns
           WHERE table_schema = $1 AND column_name = 'value' ORDER BY table_name`,
          [name],
        );
        expect(rows).toEqual([
          { table_name: 'crew_executions', data_type: 'text' },
          { table_name: 'crew_task_results', data_type: 'text' },
          { table_name: 'eval_reports', data_type: 'text' },
          { table_name: 'flow_runs', data_type: 'text' },
          { table_name: 'run_events', data_type: 'text' },
          { table_name: 'run_threads', data_type: 'text' },
          { table_name: 'store_meta', data_type: 'text' },
        ]);
        const meta = await admin.query(`SELECT name, value FROM "${name}".store_meta`);
        expect(meta.rows).toEqual([{ name: 'schema_version', value: '5' }]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await dropSchema(name);
      }
    });

    it('sets up again on the next call after the server could not be reached', async () => {
      const pool = new pg.Pool({ connectionString: SERVER });
      const flaky = switchable(pool);
      const name = await freshSchema();
      const store = new PostgresStore({ pool: flaky.pool, schema: name });
      try {
        expect(await codeOf(store.put('flow_runs', 'r', 'run', 1))).toBe('store_unavailable');
        flaky.down = false;
        await store.put('flow_runs', 'r', 'run', 2);
        expect((await store.get('flow_runs', 'r', 'run'))?.value).toBe(2);
      } finally {
        await store.close();
        await pool.end();
        await dropSchema(name);
      }
    });

    it('passes an SQL error that is not about reaching the server through unchanged', async () => {
      const name = await freshSchema();
      const store = new PostgresStore({ connectionString: SERVER, schema: name });
      try {
        await store.put('flow_runs', 'r', 'run', 1);
        await admin.query(`DROP TABLE "${name}".flow_runs`);
        const error = await store.get('flow_runs', 'r', 'run').catch((e: unknown) => e);
        expect(error).not.toBeInstanceOf(StatecrewError);
        expect((error as { code?: unknown }).code).toBe('42P01');
      } finally {
        await store.close();
        await dropSchema(name);
      }
    });

    it('refuses ids and keys PostgreSQL text cannot hold, and sorts ids as JavaScript does', async () => {
      const name = await freshSchema();
      const store = new PostgresStore({ connectionString: SERVER, schema: name });
      try {
        expect(await codeOf(store.put('flow_runs', 'nul\u0000id', 'run', 1))).toBe('invalid_option');
        expect(await codeOf(store.get('flow_runs', 'r', 'lone \uD83D surrogate'))).toBe('invalid_option');
        const ids = ['\uFF01 full-width', '💥 astral', 'b', 'B', 'a', 'é'];
        for (const id of ids) await store.put('crew_executions', id, 'run', id);
        expect(await store.executions('crew_executions')).toEqual([...ids].sort());
      } finally {
        await store.close();
        await dropSchema(name);
      }
    });
  });
}

/** The code and option of the error `build` throws. */
function refusal(build: () => unknown): { code: string; option: unknown } {
  try {
    build();
  } catch (error) {
    if (error instanceof StatecrewError) return { code: error.code, option: error.details.option };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** A pool whose connections fail as a refused server's would while `down` is true. */
function switchable(pool: Pool): { pool: Pool; down: boolean } {
  const state = { pool, down: true };
  state.pool = new Proxy(pool, {
    get(target, property) {
      const member: unknown = Reflect.get(target, property, target);
      if (typeof member !== 'function') return member;
      const method = member as (...args: unknown[]) => unknown;
      if (property !== 'query' && property !== 'connect') return method.bind(target);
      return (...args: unknown[]) => {
        if (!state.down) return method.apply(target, args);
        const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
          code: 'ECONNREFUSED',
        });
        return Promise.reject(refused);
      };
    },
  });
  return state;
}

/** What the PostgreSQL tests share: a connection of their own, and schemas no other test uses. */
interface TestServer {
  admin: Pool;
  freshSchema(): Promise<string>;
  dropSchema(name: string): Promise<void>;
}

/** The tables a version-1 store created, written by hand as its setup wrote them. */
function versionOneDdl(schema: string): string {
  const tables = ['flow_runs', 'crew_task_results', 'crew_executions'].map(
    (collection) => `
      CREATE TABLE "${schema}"."${collection}" (
        execution_id TEXT NOT NULL,
        key TEXT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        version INTEGER NOT NULL,
        value TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (execution_id, key)
      );
      CREATE INDEX "${collection}_seq" ON "${schema}"."${collection}" (execution_id, seq);`,
  );
  return `
    CREATE SCHEMA "${schema}";
    ${tables.join('\n')}
    CREATE TABLE "${schema}".store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO "${schema}".store_meta (name, value) VALUES ('schema_version', '1');`;
}

/** The schema upgrade, and what only PostgreSQL can show of commits: its round trips, its locks. */
function runHeadTests(server: TestServer): void {
  const { admin, freshSchema, dropSchema } = server;

  describe('PostgresStore run heads', () => {
    it('upgrades a version-1 schema in place, once, and still reads its records', async () => {
      const name = await freshSchema();
      await admin.query(versionOneDdl(name));
      await admin.query(
        `INSERT INTO "${name}".crew_task_results (execution_id, key, version, value, updated_at)
         VALUES ('e', 'b', 1, '{"n":1}', 5), ('e', 'a', 1, '{"n":2}', 6)`,
      );
      const stores = Array.from(
        { length: 3 },
        () => new PostgresStore({ connectionString: SERVER, schema: name }),
      );
      const [store] = stores as [PostgresStore];
      try {
        expect(await Promise.all(stores.map((s) => s.readRun('e')))).toEqual([
          undefined,
          undefined,
          undefined,
        ]);
        expect(await store.list('crew_task_results', 'e')).toEqual([
          { key: 'b', value: { n: 1 }, updatedAt: 5 },
          { key: 'a', value: { n: 2 }, updatedAt: 6 },
        ]);
        const meta = await admin.query(`SELECT name, value FROM "${name}".store_meta`);
        expect(meta.rows).toEqual([{ name: 'schema_version', value: '5' }]);
        const indexes = await admin.query<{ indexname: string }>(
          'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
          [name, 'runs'],
        );
        expect(indexes.rows.map((row) => row.indexname)).toEqual(['runs_pkey', 'runs_status']);

        expect(await store.createRun(head('e', 'a'))).toBe(true);
        const writes = [{ collection: 'crew_task_results' as const, key: 'c', value: 3 }];
        expect(await store.commit('e', { token: 'a', writes, status: 'completed', release: true })).toBe(
          true,
        );
        expect((await store.list('crew_task_results', 'e')).map((r) => r.key)).toEqual(['b', 'a', 'c']);
        expect(await store.readRun('e')).toMatchObject({ status: 'completed', version: 2, lease: null });
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await dropSchema(name);
      }
    });

    it('upgrades a version-2 schema (before run_events): its records kept, events kept from then on', async () => {
      const name = await freshSchema();
      const store = new PostgresStore({ connectionString: SERVER, schema: name });
      try {
        await store.put('crew_task_results', 'e', 'first', 'a');
        await store.close();
        await admin.query(`DROP TABLE "${name}".run_events`);
        await admin.query(`UPDATE "${name}".store_meta SET value = '2'`);
        const upgraded = new PostgresStore({ connectionString: SERVER, schema: name });
        try {
          expect((await upgraded.list('crew_task_results', 'e')).map((r) => r.value)).toEqual(['a']);
          await upgraded.put('run_events', 'e', '1', { type: 'run.started' });
          expect((await upgraded.list('run_events', 'e')).map((r) => r.key)).toEqual(['1']);
          const meta = await admin.query(`SELECT value FROM "${name}".store_meta`);
          expect(meta.rows).toEqual([{ value: '5' }]);
        } finally {
          await upgraded.close();
        }
      } finally {
        await store.close();
        await dropSchema(name);
      }
    });

    it('upgrades a version-4 schema (before eval_reports): its runs kept, reports kept from then on', async () => {
      const name = await freshSchema();
      const store = new PostgresStore({ connectionString: SERVER, schema: name });
      try {
        await store.put('flow_runs', 'r', 'run', { kept: true });
        await store.close();
        await admin.query(`DROP TABLE "${name}".eval_reports`);
        await admin.query(`UPDATE "${name}".store_meta SET value = '4'`);
        const upgraded = new PostgresStore({ connectionString: SERVER, schema: name });
        try {
          expect((await upgraded.get('flow_runs', 'r', 'run'))?.value).toEqual({ kept: true });
          await upgraded.put('eval_reports', 'e-1', 'head', { id: 'e-1' });
          expect(await upgraded.executions('eval_reports')).toEqual(['e-1']);
          const meta = await admin.query(`SELECT value FROM "${name}".store_meta`);
          expect(meta.rows).toEqual([{ value: '5' }]);
        } finally {
          await upgraded.close();
        }
      } finally {
        await store.close();
        await dropSchema(name);
      }
    });

    it('refuses a schema of a newer version (snapshot_version) and leaves it as it is', async () => {
      const name = await freshSchema();
      await admin.query(versionOneDdl(name));
      await admin.query(`UPDATE "${name}".store_meta SET value = '6'`);
      const store = new PostgresStore({ connectionString: SERVER, schema: name });
      try {
        expect(await codeOf(store.readRun('r'))).toBe('snapshot_version');
        expect(await codeOf(store.createRun(head('r')))).toBe('snapshot_version');
        const runs = await admin.query('SELECT to_regclass($1) AS runs', [`"${name}".runs`]);
        expect(runs.rows).toEqual([{ runs: null }]);
      } finally {
        await store.close();
        await dropSchema(name);
      }
    });

    it('commits three records and a status in one statement: one round trip, no client checked out', async () => {
      const pool = new pg.Pool({ connectionString: SERVER });
      const counted = counting(pool);
      const name = await freshSchema();
      const store = new PostgresStore({ pool: counted.pool, schema: name });
      try {
        await store.createRun(head('r1', 'a'));
        await store.put('crew_task_results', 'r1', 'first', 0);
        counted.calls.length = 0;
        const writes = [
          { collection: 'crew_task_results' as const, key: 'second', value: { n: 2 } },
          { collection: 'crew_task_results' as const, key: 'first', value: { n: 1 } },
          { collection: 'crew_executions' as const, key: 'run', value: { status: 'completed' } },
        ];
        expect(await store.commit('r1', { token: 'a', writes, status: 'completed', release: true })).toBe(
          true,
        );
        expect(counted.calls.map((call) => call.method)).toEqual(['query']);
        const sent = counted.calls[0]?.argument as { name?: unknown; text?: unknown; values?: unknown };
        // A named prepared statement, its data as parameters: one statement whatever the writes.
        expect(sent.name).toMatch(/^statecrew_commit_[0-9a-f]+$/);
        expect(String(sent.text).trim()).not.toContain(';');
        expect(sent.values).toContainEqual(['second', 'first']);

        expect(await store.commit('r1', { token: 'a', writes, status: 'failed' })).toBe(false);
        expect(counted.calls.map((call) => call.method)).toEqual(['query', 'query']);
        expect(counted.calls[1]?.argument).toMatchObject({ name: sent.name, text: sent.text });
        // A commit of records alone is its own prepared statement: it locks the head, never updates it.
        expect(await store.commit('r1', { token: 'a', writes })).toBe(false);
        const recordsOnly = counted.calls[2]?.argument as { name?: unknown; text?: unknown };
        expect(recordsOnly.name).toMatch(/^statecrew_commit_[0-9a-f]+$/);
        expect(recordsOnly.name).not.toBe(sent.name);
        expect(String(recordsOnly.text)).toContain('FOR SHARE');

        const results = await store.list('crew_task_results', 'r1');
        expect(results.map((r) => [r.key, r.value])).toEqual([
          ['first', { n: 1 }],
          ['second', { n: 2 }],
        ]);
        expect((await store.get('crew_executions', 'r1', 'run'))?.value).toEqual({ status: 'completed' });
        expect(await store.readRun('r1')).toMatchObject({ status: 'completed', version: 2, lease: null });
      } finally {
        await store.close();
        await pool.end();
        await dropSchema(name);
      }
    });

    it.each([
      ['that changes the head', { status: 'completed' as const }],
      ['of records alone', {}],
    ])(
      'writes nothing for a commit %s that waited on a claim which then changed the token',
      async (_, change) => {
        const name = await freshSchema();
        const store = new PostgresStore({ connectionString: SERVER, schema: name });
        await store.createRun(head('r1', 'a'));
        const claimer = await admin.connect();
        try {
          await claimer.query('BEGIN');
          await claimer.query(
            `UPDATE "${name}".runs SET token = 'b', version = version + 1 WHERE id = 'r1' AND version = 1`,
          );
          const { rows } = await claimer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          const writes = [{ collection: 'flow_runs' as const, key: 'late', value: 1 }];
          const commit = store.commit('r1', { token: 'a', writes, ...change });
          expect(await blockedBy(admin, rows[0]?.pid, commit)).toBe(true);
          await claimer.query('COMMIT');
          expect(await commit).toBe(false);
          expect(await store.list('flow_runs', 'r1')).toEqual([]);
          expect(await store.readRun('r1')).toMatchObject({ status: 'running', version: 2 });
          expect((await store.readRun('r1'))?.lease?.token).toBe('b');
        } finally {
          await claimer.query('ROLLBACK').catch(() => {});
          claimer.release();
          await store.close();
          await dropSchema(name);
        }
      },
    );

    it('names a database that does not exist as store_unavailable, keeping its SQLSTATE', async () => {
      const missing = `postgres://postgres@127.0.0.1:5432/statecrew_no_such_db_${process.pid}`;
      const store = new PostgresStore({ connectionString: missing, schema: 'statecrew_nowhere' });
      try {
        const error = await store.createRun(head('r1')).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StatecrewError);
        expect((error as StatecrewError).code).toBe('store_unavailable');
        expect((error as StatecrewError).details.cause).toBe('3D000');
        expect(await codeOf(store.claimRun('r1', 1, { status: 'running', lease: lease('a') }))).toBe(
          'store_unavailable',
        );
      } finally {
        await store.close();
      }
    });
  });
}

/** Resolves true once a session waits for a lock that backend `pid` holds; false if `pending` settled first. */
async function blockedBy(admin: Pool, pid: number | undefined, pending: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void pending.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (;;) {
    const { rows } = await admin.query<{ waiting: number }>(
      'SELECT count(*)::integer AS waiting FROM pg_stat_activity WHERE $1::integer = ANY(pg_blocking_pids(pid))',
      [pid],
    );
    if ((rows[0]?.waiting ?? 0) > 0) return true;
    if (settled) return false;
  }
}

/** A pool that records each `query` and `connect` called on it, with its first argument. */
function counting(pool: Pool): { pool: Pool; calls: { method: string; argument: unknown }[] } {
  const calls: { method: string; argument: unknown }[] = [];
  const proxy = new Proxy(pool, {
    get(target, property) {
      const member: unknown = Reflect.get(target, property, target);
      if (typeof member !== 'function') return member;
      const method = member as (...args: unknown[]) => unknown;
      if (property !== 'query' && property !== 'connect') return method.bind(target);
      return (...args: unknown[]) => {
        calls.push({ method: property, argument: args[0] });
        return method.apply(target, args);
      };
    },
  });
  return { pool: proxy, calls };
}
