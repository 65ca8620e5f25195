import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStore, type PostgresStoreOptions } from '../../src/stores/postgres.js';
import type { JsonValue, RunCommit } from '../../src/stores/store.js';
import { head } from '../contracts/run-store.contract.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432/test';
const noServices = process.env.STATECREW_NO_SERVICES === '1';

/** A statement the store sent: its text's kind and the run ids it carried. */
interface Sent {
  group: boolean;
  ids: string[];
}

/** A pg Pool whose commit statements are recorded (group or lone, and which runs). */
function recordingPool(): { pool: pg.Pool; sent: Sent[] } {
  const pool = new pg.Pool({ connectionString: SERVER });
  const sent: Sent[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { name?: string; values?: unknown[] };
    if (typeof config === 'object' && config.name?.startsWith('statecrew_commit_')) {
      const first = config.values?.[0];
      const group = Array.isArray(first);
      sent.push({ group, ids: group ? (first as string[]) : [first as string] });
    }
    return query(...args);
  };
  return { pool, sent };
}

const write = (key: string, value: JsonValue) => ({ collection: 'flow_runs' as const, key, value });

describe.skipIf(noServices)('PostgresStore group commit', () => {
  const admin = new pg.Pool({ connectionString: SERVER, max: 2 });
  afterAll(() => admin.end());
  let serial = 0;

  async function freshSchema(): Promise<string> {
    serial += 1;
    const name = `statecrew_group_${process.pid}_${serial}`;
    await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    return name;
  }

  /** A store on a fresh schema through a recording pool, runs `ids` created under token 'a'. */
  async function setUp(ids: string[], options: Partial<PostgresStoreOptions> = {}) {
    const schema = await freshSchema();
    const { pool, sent } = recordingPool();
    const store = new PostgresStore({ ...options, pool, schema } as PostgresStoreOptions);
    for (const id of ids) await store.createRun(head(id, 'a'));
    const done = async () => {
      await store.close();
      await pool.end();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    };
    return { schema, store, sent, done };
  }

  it('sends commits that come while one is in flight as one statement, each fenced by its own token', async () => {
    const { schema, store, sent, done } = await setUp(['r0', 'r1', 'r2', 'r3']);
    try {
      await admin.query(`UPDATE "${schema}".runs SET token = 'b', version = version + 1 WHERE id = 'r2'`);
      const commits: [string, RunCommit][] = [
        ['r0', { token: 'a', writes: [write('k', 0)] }],
        ['r1', { token: 'a', writes: [write('k', 1), write('j', 'one')] }],
        ['r2', { token: 'a', writes: [write('k', 2)] }],
        ['r3', { token: 'a', writes: [write('k', 3)], status: 'completed', release: true }],
      ];
      const held = await Promise.all(commits.map(([id, c]) => store.commit(id, c)));
      expect(held).toEqual([true, true, false, true]);
      expect(sent).toEqual([
        { group: false, ids: ['r0'] },
        { group: true, ids: ['r1', 'r2', 'r3'] },
      ]);
      expect((await store.list('flow_runs', 'r1')).map((r) => [r.key, r.value])).toEqual([
        ['k', 1],
        ['j', 'one'],
      ]);
      expect(await store.list('flow_runs', 'r2')).toEqual([]);
      expect((await store.get('flow_runs', 'r3', 'k'))?.value).toBe(3);
      expect(await store.readRun('r3')).toMatchObject({ status: 'completed', version: 2, lease: null });
      expect(await store.readRun('r2')).toMatchObject({ status: 'running', version: 2 });
    } finally {
      await done();
    }
  });

  it('writes nothing for a grouped commit whose head a claim held and then took; the others land', async () => {
    const { schema, store, sent, done } = await setUp(['r0', 'r1', 'r2', 'r3']);
    const claimer = await admin.connect();
    try {
      await claimer.query('BEGIN');
      await claimer.query(`UPDATE "${schema}".runs SET token = 'b', version = version + 1 WHERE id = 'r2'`);
      const { rows } = await claimer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ids = ['r0', 'r1', 'r2', 'r3'];
      const commits = ids.map((id) => store.commit(id, { token: 'a', writes: [write('late', id)] }));
      await waitUntil(async () => (await blocked(rows[0]?.pid)) > 0);
      await claimer.query('COMMIT');
      expect(await Promise.all(commits)).toEqual([true, true, false, true]);
      expect(sent.at(-1)).toEqual({ group: true, ids: ['r1', 'r2', 'r3'] });
      expect(await store.list('flow_runs', 'r2')).toEqual([]);
      expect((await store.get('flow_runs', 'r3', 'late'))?.value).toBe('r3');
    } finally {
      await claimer.query('ROLLBACK').catch(() => {});
      claimer.release();
      await done();
    }
  });

  it("never lands a run's commit before its earlier one: a run's second commit waits for the next statement", async () => {
    const { store, sent, done } = await setUp(['r0', 'r1', 'r2']);
    try {
      const held = await Promise.all([
        store.commit('r0', { token: 'a', writes: [write('k', 'r0')] }),
        store.commit('r1', { token: 'a', writes: [write('k', 'first')] }),
        store.commit('r1', { token: 'a', writes: [write('k', 'second'), write('m', 2)] }),
        store.commit('r2', { token: 'a', writes: [write('k', 'r2')] }),
        store.commit('r1', { token: 'a', writes: [write('k', 'third')], status: 'completed', release: true }),
      ]);
      expect(held).toEqual([true, true, true, true, true]);
      expect(sent).toEqual([
        { group: false, ids: ['r0'] },
        { group: true, ids: ['r1', 'r2'] },
        { group: false, ids: ['r1'] },
        { group: false, ids: ['r1'] },
      ]);
      expect((await store.list('flow_runs', 'r1')).map((r) => [r.key, r.value])).toEqual([
        ['k', 'third'],
        ['m', 2],
      ]);
      expect(await store.readRun('r1')).toMatchObject({ status: 'completed', lease: null });
    } finally {
      await done();
    }
  });

  it('rejects every commit of a failed statement with its error and writes none of them', async () => {
    const { schema, store, done } = await setUp(['r0', 'r1', 'r2', 'r3']);
    try {
      // A record keyed 'boom' makes the statement that writes it fail, whatever else it carries.
      await admin.query(`CREATE FUNCTION "${schema}".boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.key = 'boom' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$`);
      await admin.query(`CREATE TRIGGER boom BEFORE INSERT ON "${schema}".flow_runs
        FOR EACH ROW EXECUTE FUNCTION "${schema}".boom()`);
      const outcomes = await Promise.allSettled([
        store.commit('r0', { token: 'a', writes: [write('k', 0)] }),
        store.commit('r1', { token: 'a', writes: [write('k', 1)], status: 'completed', release: true }),
        store.commit('r2', { token: 'a', writes: [write('boom', 2)] }),
        store.commit('r3', { token: 'a', writes: [write('k', 3)] }),
      ]);
      expect(outcomes[0]).toEqual({ status: 'fulfilled', value: true });
      for (const outcome of outcomes.slice(1)) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toContain('boom refused');
      }
      for (const id of ['r1', 'r2', 'r3']) expect(await store.list('flow_runs', id)).toEqual([]);
      expect(await store.readRun('r1')).toMatchObject({ status: 'running', version: 1 });
      expect(await store.commit('r1', { token: 'a', writes: [write('k', 'again')] })).toBe(true);
    } finally {
      await done();
    }
  });

  it('rejects a batch cut off by a terminated backend as store_unavailable, acknowledging none', async () => {
    const { schema, store, done } = await setUp(['r0', 'r1', 'r2']);
    const locker = await admin.connect();
    try {
      // The batch waits on a lock of r1's head; its backend is then terminated.
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM "${schema}".runs WHERE id = 'r1' FOR UPDATE`);
      const { rows } = await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const outcomes = Promise.allSettled(
        ['r0', 'r1', 'r2'].map((id) => store.commit(id, { token: 'a', writes: [write('k', id)] })),
      );
      let waiting: number[] = [];
      await waitUntil(async () => {
        waiting = await blockedPids(rows[0]?.pid);
        return waiting.length > 0;
      });
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::integer[]) AS pid', [waiting]);
      const settled = await outcomes;
      expect(settled[0]).toEqual({ status: 'fulfilled', value: true });
      for (const outcome of settled.slice(1)) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'store_unavailable' });
      }
      await locker.query('ROLLBACK');
      for (const id of ['r1', 'r2']) expect(await store.list('flow_runs', id)).toEqual([]);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      locker.release();
      await done();
    }
  });

  it('sends one statement per commit with groupCommit: false', async () => {
    const { store, sent, done } = await setUp(['r0', 'r1', 'r2'], { groupCommit: false });
    try {
      const ids = ['r0', 'r1', 'r2'];
      await Promise.all(ids.map((id) => store.commit(id, { token: 'a', writes: [write('k', id)] })));
      expect(sent).toEqual(ids.map((id) => ({ group: false, ids: [id] })));
    } finally {
      await done();
    }
  });

  it('answers the commits it has taken before close ends its pool', async () => {
    const schema = await freshSchema();
    const store = new PostgresStore({ connectionString: SERVER, schema });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
      for (const id of ids) await store.createRun(head(id, 'a'));
      const commits = ids.map((id) => store.commit(id, { token: 'a', writes: [write('k', id)] }));
      await store.close();
      expect(await Promise.all(commits)).toEqual(ids.map(() => true));
      const { rows } = await admin.query(`SELECT count(*)::integer AS n FROM "${schema}".flow_runs`);
      expect(rows[0]?.n).toBe(20);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });

  describe('durability', () => {
    /** Records the `synchronous_commit` each record insert of `schema` ran with. */
    async function watchSetting(schema: string): Promise<() => Promise<string[]>> {
      await admin.query(`CREATE TABLE "${schema}".seen (setting text)`);
      await admin.query(`CREATE FUNCTION "${schema}".seen() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO "${schema}".seen VALUES (current_setting('synchronous_commit')); RETURN NEW; END $$`);
      await admin.query(`CREATE TRIGGER seen AFTER INSERT ON "${schema}".flow_runs
        FOR EACH ROW EXECUTE FUNCTION "${schema}".seen()`);
      return async () => {
        const { rows } = await admin.query<{ setting: string }>(
          `SELECT DISTINCT setting FROM "${schema}".seen`,
        );
        return rows.map((row) => row.setting);
      };
    }

    it.each([
      ['process', 'off'],
      ['power', 'on'],
    ] as const)(
      "commits with durability '%s' under synchronous_commit = %s, alone or grouped, on a pool whose connections say otherwise",
      async (durability, setting) => {
        const other = setting === 'on' ? 'off' : 'on';
        const schema = await freshSchema();
        const pool = new pg.Pool({ connectionString: SERVER, options: `-c synchronous_commit=${other}` });
        const store = new PostgresStore({ pool, schema, durability });
        try {
          const ids = ['r0', 'r1', 'r2'];
          for (const id of ids) await store.createRun(head(id, 'a'));
          const seen = await watchSetting(schema);
          const held = await Promise.all(
            ids.map((id) => store.commit(id, { token: 'a', writes: [write('k', id)] })),
          );
          expect(held).toEqual([true, true, true]);
          // A lone commit of one record (a step's) is a statement of its own shape: it sets it too.
          expect(await store.commit('r0', { token: 'a', writes: [write('k2', 'r0')] })).toBe(true);
          expect(await seen()).toEqual([setting]);
          const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
          expect(rows[0]?.synchronous_commit).toBe(other);
        } finally {
          await store.close();
          await pool.end();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        }
      },
    );

    it.each([
      ['process', 'off'],
      ['power', 'on'],
    ] as const)(
      "opens its own connections with durability '%s' under synchronous_commit = %s: its other writes too",
      async (durability, setting) => {
        const schema = await freshSchema();
        const store = new PostgresStore({ connectionString: SERVER, schema, durability });
        try {
          await store.createRun(head('r0', 'a'));
          const seen = await watchSetting(schema);
          // A put sets nothing itself: the trigger sees the setting of the store's own connection.
          await store.put('flow_runs', 'r0', 'probe', 'x');
          expect(await seen()).toEqual([setting]);
        } finally {
          await store.close();
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        }
      },
    );
  });

  /** The backends waiting on `pid`'s locks. */
  async function blockedPids(pid: number | undefined): Promise<number[]> {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE $1::integer = ANY(pg_blocking_pids(pid))',
      [pid],
    );
    return rows.map((row) => row.pid);
  }

  async function blocked(pid: number | undefined): Promise<number> {
    return (await blockedPids(pid)).length;
  }
});

/** Polls `check` (each poll a round trip to the server) until it holds; fails after 30 s. */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('waitUntil: timed out');
  }
}
