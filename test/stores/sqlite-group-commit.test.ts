import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../src/stores/sqlite.js';
import { head, lease } from '../contracts/run-store.contract.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const root = mkdtempSync(join(tmpdir(), 'statecrew-sqlite-group-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(root, `group-${++files}.db`);

/** A run whose lease `stale` held, then `fresh` took over. */
async function takenOver(store: SqliteStore, id: string, stale: string, fresh: string): Promise<void> {
  expect(await store.createRun(head(id, stale))).toBe(true);
  expect(await store.claimRun(id, 1, { status: 'running', lease: lease(fresh), replaces: stale })).toBe(true);
}

const write = (key: string, value: number) => ({ collection: 'flow_runs' as const, key, value: { value } });

describe('SqliteStore durability', () => {
  it('sets synchronous as its durability says, on a database it is given', async () => {
    for (const [durability, expected] of [
      [undefined, 1],
      ['process', 1],
      ['power', 2],
    ] as const) {
      const db = new Database(nextFile());
      const store = new SqliteStore({ database: db, durability });
      await store.put('flow_runs', 'r', 'k', 1);
      expect(db.pragma('synchronous', { simple: true })).toBe(expected);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      await store.close();
      db.close();
    }
  });

  it('keeps what a power-durable store committed, read back by another connection', async () => {
    const file = nextFile();
    const store = new SqliteStore({ path: file, durability: 'power' });
    await store.createRun(head('r1', 't1'));
    expect(await store.commit('r1', { token: 't1', writes: [write('a', 1)] })).toBe(true);
    await store.close();
    const reopened = new SqliteStore({ path: file });
    expect((await reopened.get('flow_runs', 'r1', 'a'))?.value).toEqual({ value: 1 });
    await reopened.close();
  });
});

describe('SqliteStore checkpoints', () => {
  it('raises the automatic checkpoint, and checkpoints the WAL into the file once idle', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const file = nextFile();
      const db = new Database(file);
      const store = new SqliteStore({ database: db });
      await store.createRun(head('r', 't'));
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
      const value = 'x'.repeat(1024);
      for (let i = 0; i < 200; i += 1) {
        await store.commit('r', { token: 't', writes: [{ collection: 'flow_runs', key: `k${i}`, value }] });
      }
      const before = statSync(file).size;
      vi.advanceTimersByTime(250); // the store wrote since the last look: not idle yet
      expect(statSync(file).size).toBe(before);
      vi.advanceTimersByTime(250); // idle for a whole look: checkpointed
      expect(statSync(file).size).toBeGreaterThan(before + 200 * 1024);
      await store.close();
      db.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('SqliteStore group commit', () => {
  it('fences each commit of a batch on its own: a stale owner writes nothing, the others land', async () => {
    const store = new SqliteStore({ path: nextFile() });
    await takenOver(store, 'a', 'old', 'new');
    await store.createRun(head('b', 'tb'));
    await store.createRun(head('c', 'tc'));
    const before = store.commitBatches.transactions;
    const landed = await Promise.all([
      store.commit('a', { token: 'old', writes: [write('x', 1)], status: 'failed' }),
      store.commit('a', { token: 'new', writes: [write('y', 2)] }),
      store.commit('b', { token: 'tb', writes: [write('x', 3)] }),
      store.commit('c', { token: 'tc', writes: [write('x', 4), write('z', 5)], status: 'completed' }),
      store.commit('b', { token: 'wrong', writes: [write('w', 6)] }),
    ]);
    expect(landed).toEqual([false, true, true, true, false]);
    expect(store.commitBatches.transactions).toBe(before + 1);
    expect((await store.list('flow_runs', 'a')).map((r) => r.key)).toEqual(['y']);
    expect((await store.readRun('a'))?.status).toBe('running');
    expect((await store.list('flow_runs', 'b')).map((r) => r.value)).toEqual([{ value: 3 }]);
    expect((await store.readRun('c'))?.status).toBe('completed');
    await store.close();
  });

  it('lands the commits of one run in the order it made them', async () => {
    const store = new SqliteStore({ path: nextFile() });
    await store.createRun(head('r', 't'));
    const commits = Array.from({ length: 20 }, (_, i) =>
      store.commit('r', { token: 't', writes: [write('last', i), write(`k${i}`, i)] }),
    );
    expect(await Promise.all(commits)).toEqual(commits.map(() => true));
    expect((await store.get('flow_runs', 'r', 'last'))?.value).toEqual({ value: 19 });
    const keys = (await store.list('flow_runs', 'r')).map((r) => r.key).filter((k) => k !== 'last');
    expect(keys).toEqual(commits.map((_, i) => `k${i}`));
    await store.close();
  });

  it('lets no read or claim overtake a commit made before it', async () => {
    const store = new SqliteStore({ path: nextFile() });
    await store.createRun(head('r', 't'));
    const committed = store.commit('r', { token: 't', writes: [write('k', 1)], release: true });
    // Made after the commit, not awaited in between: it sees the commit.
    expect((await store.get('flow_runs', 'r', 'k'))?.value).toEqual({ value: 1 });
    expect((await store.readRun('r'))?.lease).toBeNull();
    expect(await committed).toBe(true);
    await store.close();
  });

  it('undoes only the commit whose statement fails; the rest of its batch lands', async () => {
    const db = new Database(nextFile());
    const store = new SqliteStore({ database: db });
    await store.createRun(head('a', 'ta'));
    await store.createRun(head('b', 'tb'));
    db.exec(
      `CREATE TRIGGER refuse BEFORE INSERT ON flow_runs WHEN NEW.key = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    const settled = await Promise.allSettled([
      store.commit('a', { token: 'ta', writes: [write('ok', 1), write('bad', 2)], status: 'completed' }),
      store.commit('b', { token: 'tb', writes: [write('ok', 3)] }),
      store.commit('a', { token: 'ta', writes: [write('bad', 4)] }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
    expect((await store.list('flow_runs', 'a')).length).toBe(0);
    expect((await store.readRun('a'))?.status).toBe('running');
    expect((await store.list('flow_runs', 'b')).map((r) => r.value)).toEqual([{ value: 3 }]);
    await store.close();
    db.close();
  });

  it('rejects every commit of a batch with one store_unavailable when its transaction fails', async () => {
    const db = new Database(nextFile());
    const store = new SqliteStore({ database: db });
    for (const id of ['a', 'b', 'c']) await store.createRun(head(id, `t${id}`));
    // The file may not grow: a batch that needs new pages fails as a whole (SQLITE_FULL).
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    const big = 'x'.repeat(64 * 1024);
    const settled = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) =>
        store.commit(id, { token: `t${id}`, writes: [{ collection: 'flow_runs', key: 'k', value: big }] }),
      ),
    );
    const reasons = settled.map((s) => (s.status === 'rejected' ? s.reason : undefined));
    expect(reasons[0]).toMatchObject({ code: 'store_unavailable', details: { cause: 'SQLITE_FULL' } });
    expect(reasons[1]).toBe(reasons[0]);
    expect(reasons[2]).toBe(reasons[0]);
    for (const id of ['a', 'b', 'c']) expect(await store.list('flow_runs', id)).toEqual([]);
    await store.close();
    db.close();
  });

  it('settles the commits still in their batch when closed, and they are in the file', async () => {
    const file = nextFile();
    const store = new SqliteStore({ path: file });
    await store.createRun(head('r', 't'));
    const commits = [1, 2, 3].map((i) => store.commit('r', { token: 't', writes: [write(`k${i}`, i)] }));
    await store.close();
    expect(await Promise.all(commits)).toEqual([true, true, true]);
    const reopened = new SqliteStore({ path: file });
    expect((await reopened.list('flow_runs', 'r')).map((r) => r.key)).toEqual(['k1', 'k2', 'k3']);
    await reopened.close();
  });

  it('gives every commit its own transaction with groupCommit false', async () => {
    const store = new SqliteStore({ path: nextFile(), groupCommit: false });
    await store.createRun(head('r', 't'));
    const commits = [1, 2, 3].map((i) => store.commit('r', { token: 't', writes: [write(`k${i}`, i)] }));
    expect(await Promise.all(commits)).toEqual([true, true, true]);
    expect(store.commitBatches).toEqual({ transactions: 0, commits: 0, largest: 0 });
    expect((await store.list('flow_runs', 'r')).length).toBe(3);
    await store.close();
  });
});
