import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/stores/sqlite.js';
import { storeContract } from '../contracts/store.contract.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const root = mkdtempSync(join(tmpdir(), 'statecrew-sqlite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let serial = 0;
let path = '';

storeContract('SqliteStore', {
  durable: true,
  async open() {
    serial += 1;
    path = join(root, `store-${serial}`, 'statecrew.db');
    return new SqliteStore({ path });
  },
  async reopen() {
    return new SqliteStore({ path });
  },
  async writeRaw(store, collection, executionId, key, version, text) {
    await store.list(collection, executionId); // the store creates its tables first
    const db = new Database(path);
    db.prepare(
      `INSERT INTO "${collection}" (execution_id, key, version, value, updated_at) VALUES (?, ?, ?, ?, ?)`,
    ).run(executionId, key, version, text, 0);
    db.close();
  },
  async unreachable() {
    // A directory cannot be made under a regular file.
    const file = join(root, `not-a-directory-${serial}`);
    writeFileSync(file, '');
    return new SqliteStore({ path: join(file, 'statecrew.db') });
  },
  async cleanup() {},
});

describe('SqliteStore', () => {
  it('defaults to .statecrew/statecrew.db under the working directory, or STATECREW_DB', () => {
    const saved = process.env.STATECREW_DB;
    try {
      delete process.env.STATECREW_DB;
      expect(new SqliteStore().path).toBe(join(process.cwd(), '.statecrew', 'statecrew.db'));
      process.env.STATECREW_DB = join(root, 'from-env.db');
      expect(new SqliteStore().path).toBe(join(root, 'from-env.db'));
    } finally {
      if (saved === undefined) delete process.env.STATECREW_DB;
      else process.env.STATECREW_DB = saved;
    }
  });

  it('creates its file in WAL mode, versioned, and opens it again unchanged', async () => {
    const file = join(root, 'wal', 'db.sqlite');
    const store = new SqliteStore({ path: file });
    await store.put('crew_executions', 'e', 'run', { ok: true });
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
    const again = new SqliteStore({ path: file });
    expect((await again.get('crew_executions', 'e', 'run'))?.value).toEqual({ ok: true });
    await again.close();
  });

  it('upgrades a version-3 file (before run_events): its records kept, events kept from then on', async () => {
    const file = join(root, 'v3', 'db.sqlite');
    const store = new SqliteStore({ path: file });
    await store.put('crew_task_results', 'e', 'first', 'a');
    await store.close();
    const db = new Database(file);
    db.exec('DROP TABLE "run_events"');
    db.pragma('user_version = 3');
    db.close();
    const upgraded = new SqliteStore({ path: file });
    expect((await upgraded.list('crew_task_results', 'e')).map((r) => r.value)).toEqual(['a']);
    await upgraded.put('run_events', 'e', '1', { type: 'run.started' });
    expect((await upgraded.list('run_events', 'e')).map((r) => r.key)).toEqual(['1']);
    await upgraded.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
  });

  it.each([1, 2])(
    'upgrades a version-%i file in place: its records kept in their order, new ones after them',
    async (version) => {
      const file = join(root, `v${version}`, 'db.sqlite');
      const store = new SqliteStore({ path: file });
      await store.list('flow_runs', 'x'); // creates the file's directory and tables
      await store.close();
      // Rewrite the file as an older statecrew left it: AUTOINCREMENT tables (and no heads at version 1).
      const db = new Database(file);
      for (const table of ['flow_runs', 'crew_task_results', 'crew_executions']) {
        db.exec(`DROP TABLE "${table}"`);
        db.exec(
          `CREATE TABLE "${table}" (seq INTEGER PRIMARY KEY AUTOINCREMENT, execution_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, value TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (execution_id, key))`,
        );
      }
      if (version === 1) db.exec('DROP TABLE runs');
      const insert = db.prepare(
        'INSERT INTO crew_task_results (seq, execution_id, key, version, value, updated_at) VALUES (?, ?, ?, 1, ?, 0)',
      );
      insert.run(40, 'e', 'second', '"b"');
      insert.run(7, 'e', 'first', '"a"');
      insert.run(90, 'other', 'only', '"o"');
      db.pragma(`user_version = ${version}`);
      db.close();

      const upgraded = new SqliteStore({ path: file });
      expect((await upgraded.list('crew_task_results', 'e')).map((r) => [r.key, r.value])).toEqual([
        ['first', 'a'],
        ['second', 'b'],
      ]);
      await upgraded.put('crew_task_results', 'e', 'third', 'c');
      expect((await upgraded.list('crew_task_results', 'e')).map((r) => r.key)).toEqual([
        'first',
        'second',
        'third',
      ]);
      expect(
        await upgraded.createRun({
          id: 'e',
          kind: 'crew',
          name: 'c',
          status: 'paused',
          version: 1,
          lease: null,
          data: {},
          createdAt: 1,
          updatedAt: 1,
        }),
      ).toBe(true);
      await upgraded.close();
      const check = new Database(file, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(6);
      const sql = check
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'crew_task_results'")
        .pluck()
        .get();
      expect(String(sql)).not.toContain('AUTOINCREMENT');
      check.close();
    },
  );

  it('upgrades a version-4 file (before run_threads): its runs kept, threads kept from then on', async () => {
    const file = join(root, 'v4.db');
    const before = new SqliteStore({ path: file });
    await before.put('flow_runs', 'r', 'run', { kept: true });
    await before.close();
    const db = new Database(file);
    db.exec('DROP TABLE run_threads');
    db.pragma('user_version = 4');
    db.close();
    const store = new SqliteStore({ path: file });
    expect((await store.get('flow_runs', 'r', 'run'))?.value).toEqual({ kept: true });
    expect(await store.insert('run_threads', 'chat', '000000000001', { runId: 'r', at: 1 })).toBe(true);
    expect((await store.list('run_threads', 'chat')).map((r) => r.key)).toEqual(['000000000001']);
    await store.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
  });

  it('upgrades a version-5 file (before eval_reports): its runs kept, reports kept from then on', async () => {
    const file = join(root, 'v5.db');
    const before = new SqliteStore({ path: file });
    await before.put('flow_runs', 'r', 'run', { kept: true });
    await before.close();
    const db = new Database(file);
    db.exec('DROP TABLE eval_reports');
    db.pragma('user_version = 5');
    db.close();
    const store = new SqliteStore({ path: file });
    expect((await store.get('flow_runs', 'r', 'run'))?.value).toEqual({ kept: true });
    await store.put('eval_reports', 'e-1', 'head', { id: 'e-1' });
    expect(await store.executions('eval_reports')).toEqual(['e-1']);
    await store.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
  });

  it('refuses a file written by a newer schema (snapshot_version) and bad options (invalid_option)', async () => {
    const file = join(root, 'newer.db');
    const db = new Database(file);
    db.pragma('user_version = 7');
    db.close();
    const store = new SqliteStore({ path: file });
    await expect(store.get('flow_runs', 'x', 'run')).rejects.toMatchObject({ code: 'snapshot_version' });
    await store.close();
    expect(() => new SqliteStore({ path: '' })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    expect(() => new SqliteStore({ busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
  });

  it('keeps a :memory: database for the store object’s life', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    await store.put('flow_runs', 'r', 'run', [1, 2]);
    expect((await store.get('flow_runs', 'r', 'run'))?.value).toEqual([1, 2]);
    await store.close();
  });
});
