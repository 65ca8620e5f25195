import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/stores/sqlite.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const WRITER = fileURLToPath(new URL('../fixtures/stores/sqlite-writer.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'statecrew-sqlite-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let writers: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const writer of writers) writer.kill('SIGKILL');
  writers = [];
});

/** A writer process holding a write transaction on `file`, once it says so; its lines as they come. */
async function holdingWriter(file: string, holdMs?: number) {
  const env = { ...process.env, ...(holdMs === undefined ? {} : { HOLD_MS: String(holdMs) }) };
  const child = spawn(process.execPath, [WRITER, file], { env });
  writers.push(child);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  expect(await next()).toBe('holding');
  return { child, next };
}

const journalMode = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('journal_mode', { simple: true });
  } finally {
    db.close();
  }
};

describe('SqliteStore opening a file another process writes to', () => {
  // SQLite runs no busy handler for the switch to WAL: without waiting on its own, a store opened
  // while another process wrote to a new file failed at once (SQLITE_BUSY), whatever its busy timeout.
  it('waits for the writer before switching the file to WAL, then works', async () => {
    const file = join(root, 'shared.db');
    // The writer lets go on its own: opening the store blocks this process, which cannot tell it to.
    // However late it lets go, the store waits for it (up to 30 s): no timing is asserted.
    await holdingWriter(file, 300);
    const store = new SqliteStore({ path: file, busyTimeoutMs: 30_000 });
    try {
      await store.put('flow_runs', 'r1', 'run', { n: 1 });
      expect((await store.get('flow_runs', 'r1', 'run'))?.value).toEqual({ n: 1 });
      expect(journalMode(file)).toBe('wal');
      const db = new Database(file, { readonly: true });
      expect(db.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'held' }]);
      db.close();
    } finally {
      await store.close();
    }
  });

  it('gives up after its busy timeout (store_unavailable, SQLITE_BUSY), and opens on the next use once the file is free', async () => {
    const file = join(root, 'held.db');
    const writer = await holdingWriter(file);
    const store = new SqliteStore({ path: file, busyTimeoutMs: 50 });
    try {
      await expect(store.listRuns()).rejects.toMatchObject({
        code: 'store_unavailable',
        details: { cause: 'SQLITE_BUSY' },
      });
      writer.child.stdin.write('go\n');
      expect(await writer.next()).toBe('released');
      expect(await store.listRuns()).toEqual([]);
      expect(journalMode(file)).toBe('wal');
    } finally {
      await store.close();
    }
  });
});
