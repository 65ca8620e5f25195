import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/stores/sqlite.js';
import { type FenceParams, fencedCommits } from '../../src/stores/sqlite-commit.js';
import { migrate, prepareStatements } from '../../src/stores/sqlite-schema.js';
import { head } from '../contracts/run-store.contract.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const root = mkdtempSync(join(tmpdir(), 'statecrew-sqlite-lone-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(root, `lone-${++files}.db`);

const fence = (token: string): FenceParams => ({ id: 'r', token, status: null, release: 0, updated_at: 1 });
const only = (key: string) => [{ collection: 'flow_runs' as const, key, text: '{"v":1}' }];

/** A file with run `r` held by token `a`, open on a connection with a 5 s busy timeout. */
async function fileWithRun(): Promise<{ file: string; db: BetterSqlite3.Database }> {
  const file = nextFile();
  const store = new SqliteStore({ path: file });
  await store.createRun(head('r', 'a'));
  await store.close();
  const db = new Database(file, { timeout: 5000 });
  migrate(db, file);
  return { file, db };
}

describe('SqliteStore: a lone fenced commit, one statement of its own', () => {
  it('runs again under BEGIN IMMEDIATE when its statement is refused busy at once, landing once', async () => {
    const { db } = await fileWithRun();
    const { records, heads } = prepareStatements(db);
    let refusals = 0;
    const refusingOnce = new Map(
      [...records].map(([collection, statements]) => {
        const fencedPut = {
          run: (params: unknown) => {
            if (refusals === 0) {
              refusals += 1;
              throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' });
            }
            return statements.fencedPut.run(params);
          },
        } as unknown as BetterSqlite3.Statement;
        return [collection, { put: statements.put, fencedPut }];
      }),
    );
    const { commit } = fencedCommits(db, refusingOnce, heads);
    expect(commit(fence('a'), only('k'))).toBe(true);
    expect(refusals).toBe(1);
    expect(db.prepare('SELECT count(*) AS n FROM flow_runs WHERE key = ?').get('k')).toEqual({ n: 1 });
    expect(commit(fence('stale'), only('k2'))).toBe(false);
    db.close();
  });

  it('fails a lone commit busy past the busy timeout, writing nothing, and commits once the lock is free', async () => {
    const { file, db } = await fileWithRun();
    const store = new SqliteStore({ path: file, busyTimeoutMs: 0 });
    await store.readRun('r');
    db.exec('BEGIN IMMEDIATE');
    await expect(
      store.commit('r', { token: 'a', writes: [{ collection: 'flow_runs', key: 'k', value: 1 }] }),
    ).rejects.toMatchObject({
      code: 'store_unavailable',
    });
    db.exec('ROLLBACK');
    expect(await store.get('flow_runs', 'r', 'k')).toBeUndefined();
    expect(
      await store.commit('r', { token: 'a', writes: [{ collection: 'flow_runs', key: 'k', value: 1 }] }),
    ).toBe(true);
    expect((await store.get('flow_runs', 'r', 'k'))?.value).toBe(1);
    await store.close();
    db.close();
  });
});
