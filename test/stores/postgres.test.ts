import type { Pool } from 'pg';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { StatecrewError } from '../../src/errors.js';
import { PostgresStore, type PostgresStoreOptions } from '../../src/stores/postgres.js';
import { storeContract } from '../contracts/store.contract.js';
import { codeOf } from '../store-helpers.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432/test';
/** Nothing listens on port 1. */
const NOWHERE = 'postgres://postgres@127.0.0.1:1/test';

const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices)
  console.log('PostgresStore tests skipped: STATECREW_NO_SERVICES=1 says no PostgreSQL server is running');
describe.skipIf(noServices)('PostgresStore on the server at 127.0.0.1:5432', () => postgresTests());

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
          { table_name: 'flow_runs', data_type: 'text' },
          { table_name: 'store_meta', data_type: 'text' },
        ]);
        const meta = await admin.query(`SELECT name, value FROM "${name}".store_meta`);
        expect(meta.rows).toEqual([{ name: 'schema_version', value: '1' }]);
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
