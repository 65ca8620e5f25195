import type BetterSqlite3 from 'better-sqlite3';
import type { Durability } from './durability.js';

/** The longest pause between two tries to switch a file to WAL, in ms. */
const MAX_PAUSE_MS = 50;

/**
 * Puts the file in WAL mode, waiting up to `busyTimeoutMs` for it. SQLite runs no busy handler for
 * the switch: while another connection writes to a new file (its own switch, say), `journal_mode =
 * WAL` fails at once with SQLITE_BUSY, however long the busy timeout. So the mode is read first (a
 * file already in WAL mode takes no lock at all), and a refused switch is tried again, with growing
 * pauses, until the busy timeout has passed — then the last SQLITE_BUSY is thrown.
 */
export function enterWal(db: BetterSqlite3.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(2 * pauseMs, MAX_PAUSE_MS)) {
    try {
      if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
      if (!busy || Date.now() + pauseMs > deadline) throw error;
      pauseSync(pauseMs);
    }
  }
}

/** Blocks this thread for `ms`: opening a store is synchronous, as better-sqlite3 is. */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Sets what a commit on `db` survives: `'process'` → `synchronous = NORMAL` (in WAL mode, a commit
 * is in the WAL file when acknowledged, and is synced at the next checkpoint: a process crash loses
 * nothing, a power loss may lose the last commits), `'power'` → `synchronous = FULL` (the WAL is
 * synced at every commit).
 */
export function setDurability(db: BetterSqlite3.Database, durability: Durability): void {
  db.pragma(`synchronous = ${durability === 'power' ? 'FULL' : 'NORMAL'}`);
}
