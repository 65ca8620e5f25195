import type BetterSqlite3 from 'better-sqlite3';
import { STORE_FORMAT_VERSION, type StoreCollection } from './store.js';

/** A commit's fence: the head it moves on while `token` holds (`release` 1 gives the lease up). */
export interface FenceParams {
  id: string;
  token: string;
  status: string | null;
  release: 0 | 1;
  updated_at: number;
}

/** One record a commit writes, its value already JSON text. */
export interface EncodedWrite {
  collection: StoreCollection;
  key: string;
  text: string;
}

/** A commit waiting for its transaction: its fence and its records, encoded. */
export interface PendingCommit {
  fence: FenceParams;
  writes: readonly EncodedWrite[];
}

/** The statements a fenced commit runs on one collection's records. */
interface RecordWriters {
  put: BetterSqlite3.Statement;
  /** `put` only while the run's lease carries the token: `{ id, key, version, value, at, token }`. */
  fencedPut: BetterSqlite3.Statement;
}

/** The statements a fenced commit runs on run heads. */
interface HeadFences {
  /** Moves the head on only while the token holds. */
  fence: BetterSqlite3.Statement;
  /** Whether the token holds (`(id, token)`). */
  held: BetterSqlite3.Statement;
}

/** The commits of a store's connection: one at a time, and several in one transaction. */
export interface FencedCommits {
  /** A fenced commit, atomic: false, writing nothing, when the token no longer holds. */
  commit(fence: FenceParams, writes: readonly EncodedWrite[]): boolean;
  /**
   * Several fenced commits in one transaction, in order, each atomic and fenced on its own: per
   * commit, whether it landed, or the statement error that undid it alone. A failure of the
   * transaction itself (the file full, unreadable, locked past the busy timeout) throws: none landed.
   */
  commitMany(commits: readonly PendingCommit[]): (boolean | Error)[];
}

/** SQLite result codes of a statement that is wrong, rather than of a file that cannot be used. */
const STATEMENT_CODES = /^SQLITE_(ERROR|CONSTRAINT|MISUSE|RANGE|MISMATCH|TOOBIG)/;

/** Whether `error` is SQLite refusing one statement (its transaction usable), not the file failing. */
export function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || error.name !== 'SqliteError' || typeof code !== 'string') return true;
  return STATEMENT_CODES.test(code);
}

/** Whether a commit is one record and no change to its head: one fenced statement. */
const isSingle = (fence: FenceParams, writes: readonly EncodedWrite[]): boolean =>
  writes.length === 1 && fence.status === null && fence.release === 0;

/** A busy result (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT…): the statement wrote nothing, it may run again. */
const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/**
 * Fenced commits on these statements. Run as BEGIN IMMEDIATE: the write lock is held from the fence
 * on, so a fence that only reads (a commit that changes nothing of the head) holds as surely as one
 * that updates. A commit of one record and no head change is one fenced statement, run on its own
 * (autocommit): a lone write statement takes the write lock before it reads anything, waiting on the
 * busy timeout as BEGIN IMMEDIATE does, so its fence and its write are one atomic step. Should it
 * still be refused busy before the busy timeout has passed (a stale snapshot, SQLITE_BUSY_SNAPSHOT;
 * nothing written), it runs again under BEGIN IMMEDIATE, which waits; a busy result after the busy
 * timeout is thrown as before. Inside a transaction of the connection's owner it joins that
 * transaction, as before.
 */
export function fencedCommits(
  db: BetterSqlite3.Database,
  records: ReadonlyMap<StoreCollection, RecordWriters>,
  heads: HeadFences,
): FencedCommits {
  const writeAll = (fence: FenceParams, writes: readonly EncodedWrite[]): boolean => {
    const moves = fence.status !== null || fence.release === 1;
    const held = moves
      ? heads.fence.run(fence).changes === 1
      : heads.held.get(fence.id, fence.token) !== undefined;
    if (!held) return false;
    for (const write of writes) {
      const { put } = records.get(write.collection) as RecordWriters;
      put.run(fence.id, write.key, STORE_FORMAT_VERSION, write.text, fence.updated_at);
    }
    return true;
  };
  const putOne = (fence: FenceParams, only: EncodedWrite): boolean => {
    const { fencedPut } = records.get(only.collection) as RecordWriters;
    const params = {
      id: fence.id,
      key: only.key,
      version: STORE_FORMAT_VERSION,
      value: only.text,
      at: fence.updated_at,
      token: fence.token,
    };
    return fencedPut.run(params).changes === 1;
  };
  const inTransaction = db.transaction(writeAll);
  const inOne = db.transaction(putOne);
  const busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true }));
  const putAlone = (fence: FenceParams, only: EncodedWrite): boolean => {
    if (db.inTransaction) return inOne.immediate(fence, only);
    const started = Date.now();
    try {
      return putOne(fence, only);
    } catch (error) {
      if (!isBusy(error) || Date.now() - started >= busyTimeoutMs) throw error;
      return inOne.immediate(fence, only);
    }
  };
  const commit = (fence: FenceParams, writes: readonly EncodedWrite[]): boolean =>
    isSingle(fence, writes)
      ? putAlone(fence, writes[0] as EncodedWrite)
      : inTransaction.immediate(fence, writes);
  return { commit, commitMany: batchOf(db, putOne, inTransaction) };
}

/**
 * Several commits in one BEGIN IMMEDIATE … COMMIT. A commit of one statement is atomic on its own (a
 * failing statement undoes only itself); a commit of several runs in a SAVEPOINT (a nested
 * transaction), so a statement error undoes that commit alone. Any other error — the file full or
 * failing — ends the whole transaction, rolled back, and is thrown.
 */
function batchOf(
  db: BetterSqlite3.Database,
  putOne: (fence: FenceParams, only: EncodedWrite) => boolean,
  inSavepoint: (fence: FenceParams, writes: readonly EncodedWrite[]) => boolean,
): FencedCommits['commitMany'] {
  const one = ({ fence, writes }: PendingCommit): boolean =>
    isSingle(fence, writes) ? putOne(fence, writes[0] as EncodedWrite) : inSavepoint(fence, writes);
  const all = db.transaction((commits: readonly PendingCommit[]): (boolean | Error)[] =>
    commits.map((pending) => {
      try {
        return one(pending);
      } catch (error) {
        if (!isStatementError(error) || !db.inTransaction) throw error;
        return error as Error;
      }
    }),
  );
  return (commits) => all.immediate(commits);
}
