import type { z } from 'zod';
import {
  CorruptSnapshotError,
  InvalidOptionError,
  SnapshotVersionError,
  StoreClosedError,
} from '../errors.js';
import { option } from '../options/option.js';

/** A value a store keeps: what `JSON.stringify` writes and `JSON.parse` reads back unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * What statecrew keeps, each record addressed by collection, execution id and key:
 *   `flow_runs`          a flow run's snapshot (key `run`)
 *   `crew_task_results`  one record per completed task run of a crew (key: the node id)
 *   `crew_executions`    a crew run's document, written when it ends (key `run`)
 *   `run_events`         a run's kept events (`events: 'store'`), one record per event, keyed by its
 *                        sequence number (see `readEvents`)
 *   `run_threads`        a thread's runs (`kickoff({ thread })`), under the thread's name, one record
 *                        per run keyed by its number in the thread (`000000000001`…): `{ runId, at }`.
 *                        A thread's records belong to no run: pruning a run leaves them.
 *   `eval_reports`       an evaluation's report (`evaluate({ store })`), under the report's id: the
 *                        whole report (key `report`), then its head (key `head`), which listings read.
 *                        A report belongs to no run: pruning runs leaves it.
 */
export const STORE_COLLECTIONS = [
  'flow_runs',
  'crew_task_results',
  'crew_executions',
  'run_events',
  'run_threads',
  'eval_reports',
] as const;

/** The collections whose records belong to no run (a thread's, a report's): pruning runs leaves them. */
const UNOWNED_COLLECTIONS: readonly StoreCollection[] = ['run_threads', 'eval_reports'];

/** The collections whose records a run owns (under its id): what pruning a run deletes. */
export const RUN_COLLECTIONS: readonly StoreCollection[] = STORE_COLLECTIONS.filter(
  (c) => !UNOWNED_COLLECTIONS.includes(c),
);

/** One of {@link STORE_COLLECTIONS}. */
export type StoreCollection = (typeof STORE_COLLECTIONS)[number];

/** A record as a store returns it. */
export interface StoredRecord {
  key: string;
  value: JsonValue;
  /** When it was last written, in epoch milliseconds (the store's clock). */
  updatedAt: number;
}

/** What kind of definition a stored run belongs to. */
export type RunKind = 'flow' | 'crew';

/** Every status a stored run's head can have. */
export const STORED_RUN_STATUSES = [
  'running',
  'paused',
  'completed',
  'partial',
  'failed',
  'aborted',
] as const;

/** Where a stored run stands: `running` while it has (or had, before its process died) an owner. */
export type StoredRunStatus = (typeof STORED_RUN_STATUSES)[number];

/** The statuses of runs that ended: what `prune` deletes unless told otherwise. */
export const SETTLED_RUN_STATUSES: readonly StoredRunStatus[] = ['completed', 'partial', 'failed', 'aborted'];

/**
 * Who holds a run while it runs: written by a claim, its expiry moved by the owner's heartbeat,
 * cleared when the run settles or pauses. Every write of the owner carries `token` (the fence).
 */
export interface RunLease {
  /** The owner as people read it: `<hostname>:<pid>` (and `/<thread>` off the main thread). */
  owner: string;
  /** A random token: only writes that carry it commit. */
  token: string;
  /**
   * Epoch ms after which the lease is free. A store given `ttlMs` sets it on its own clock (its now
   * plus `ttlMs`, at every claim and renewal); without `ttlMs` it is kept as the writer gave it.
   */
  expiresAt: number;
  /** The owner's host (hostname, boot and process namespace): where `pid` can be checked. */
  host: string;
  pid: number;
  /** The owner's worker thread (0 on the main thread). */
  thread: number;
  /**
   * How long the lease lasts from each claim or renewal, in ms: a store that keeps time (every
   * built-in one) sets `expiresAt` from it on its own clock, so no writer's clock decides it.
   */
  ttlMs?: number | undefined;
  /**
   * When the owner's process started, as its host tells it (Linux: clock ticks since boot): a pid
   * reused by another process after the owner died is not taken for the owner.
   */
  started?: string | undefined;
  /**
   * Set by a store when it reads the head: ms until `expiresAt` on the store's own clock (≤ 0: the
   * lease expired). Readers judge expiry by it, never by their own clock; ignored on writes.
   */
  remainingMs?: number | undefined;
}

/** A stored run's head: one per run, whatever its kind, beside the records the run writes. */
export interface RunHead {
  /** The run's id (a flow's state id, a crew's execution id). */
  id: string;
  kind: RunKind;
  /** The name of the definition it is a run of. */
  name: string;
  status: StoredRunStatus;
  /** Moved on by every claim and every change of status: claims compare and set it. */
  version: number;
  /** The owner while the run runs; null once it settled or paused (or never had one). */
  lease: RunLease | null;
  /** What the run was started with (its inputs, the definition's fingerprint), as the runtime keeps it. */
  data: JsonValue;
  /** When the head was created and last changed, in epoch ms (the store's clock). */
  createdAt: number;
  updatedAt: number;
}

/** One record a commit writes, under the committing run's id. */
export interface RecordWrite {
  collection: StoreCollection;
  key: string;
  value: JsonValue;
}

/** What a run's owner commits at once: records, and a new status for its head; all or nothing. */
export interface RunCommit {
  /** The owner's lease token: nothing is written unless the run's lease still carries it. */
  token: string;
  /** Records to write (each replacing the record at its address, like `put`), in order. */
  writes: readonly RecordWrite[];
  /** The head's new status (which moves its version on). */
  status?: StoredRunStatus | undefined;
  /** Clears the lease: the run settled or paused. */
  release?: boolean | undefined;
}

/** A claim of a run whose head is at `expectedVersion`: its new status and owner. */
export interface RunClaim {
  status: StoredRunStatus;
  lease: RunLease | null;
  /**
   * The token of a lease the claimer found free though it has not expired: its owner's process is
   * gone (checked on the owner's host), or it is a lease of the claimer's own thread that no run
   * holds. Without it, a store refuses the claim while the head's lease is live on its clock.
   */
  replaces?: string | undefined;
}

/** Where a page of runs ended: its last run's creation time and id, which order a listing by page. */
export interface RunPosition {
  createdAt: number;
  id: string;
}

/** A page of {@link Store.listRuns}: newest first (by `createdAt`, then id, descending), at most `limit`. */
export interface RunPageFilter {
  /** At most this many heads (a whole number from 1). */
  limit: number;
  /** Only the runs after this position in that order: where the previous page ended. */
  after?: RunPosition | undefined;
}

/** Which heads {@link Store.listRuns} returns. */
export interface RunFilter {
  /** Only runs with one of these statuses. @default every status */
  statuses?: readonly StoredRunStatus[] | undefined;
  /** Only runs of the definition with this name. @default every definition */
  name?: string | undefined;
  /** Only runs created at or after this time (epoch ms, the store's clock). @default no bound */
  createdFrom?: number | undefined;
  /** Only runs created before this time (epoch ms). @default no bound */
  createdBefore?: number | undefined;
  /**
   * Only the runs of this thread (`kickoff({ thread })`), oldest first (the order they were kicked
   * off in), the other bounds applied; with `page`, one page of them newest first. Runs pruned since
   * are left out. @default every run, threaded or not
   */
  thread?: string | undefined;
  /**
   * One page, newest first, rather than every match sorted by id. A run inserted while a client pages
   * lands before the position it holds or after it, never moving the runs it has still to see.
   * @default every match, sorted by id
   */
  page?: RunPageFilter | undefined;
}

/** What {@link Store.prune} deletes. */
export interface PruneOptions {
  /** Runs whose head last changed before this time (epoch ms, or a Date) are deleted. */
  olderThan: number | Date;
  /** Only runs with one of these statuses. @default the settled ones: completed, partial, failed, aborted */
  statuses?: readonly StoredRunStatus[] | undefined;
  /**
   * Keep the matching runs — their head, their task or step records (their history) and their
   * results — and delete only their kept events (`run_events`), the bulk of a long run: `history`,
   * `fork` and `diffRuns` still work on them. `pruned` then lists the runs whose events were deleted.
   * @default false: the matching runs are deleted with every record they own
   */
  keepHistory?: boolean | undefined;
}

/** What {@link Store.pruneRuns} did: the runs it deleted, and those it kept back as their lease is live. */
export interface PruneResult {
  /** The ids of the runs deleted (with `keepHistory`: whose kept events were deleted), sorted. */
  pruned: string[];
  /** The ids of the runs that matched but were kept: their lease is live on the store's clock. Sorted. */
  kept: string[];
}

/**
 * Where durable runs live: a small contract every store implements the same way (one contract suite
 * checks them all). Records are JSON addressed by collection, execution id and key; each run also
 * has a head ({@link RunHead}) saying who owns it. Values are written with the store's format
 * version and rows it cannot read are refused (`corrupt_snapshot`) or of a version it does not know
 * (`snapshot_version`). Every method rejects after `close` (`store_closed`) and when its server
 * cannot be reached (`store_unavailable`, the driver's code in `details.cause`), never retrying
 * forever. The run methods are atomic against every other writer, in any process: a claim is a
 * compare-and-set, a commit checks its fence and writes everything or nothing.
 *
 * @example
 * await store.put('crew_task_results', executionId, 'research', { raw: '…' });
 * const results = await store.list('crew_task_results', executionId); // in first-write order
 */
export interface Store {
  /** What kind of store this is: `memory`, `sqlite`, `postgres`, `redis`, or a user store's own. */
  readonly kind: string;
  /** Writes a record, replacing the one with the same address (which keeps its place in `list`). */
  put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void>;
  /** Writes a record only if none has its address; resolves whether it wrote. */
  insert(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<boolean>;
  /** The record at an address, if there is one. */
  get(collection: StoreCollection, executionId: string, key: string): Promise<StoredRecord | undefined>;
  /** Every record of one execution in a collection, in the order they were first written. */
  list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]>;
  /** The execution ids that have records in a collection, sorted. */
  executions(collection: StoreCollection): Promise<string[]>;
  /**
   * Creates a run's head (its `version`, `createdAt` and `updatedAt` as given) if no run has its id;
   * resolves whether it did: the claim of a new run.
   */
  createRun(head: RunHead): Promise<boolean>;
  /** The head of run `id`, if there is one. */
  readRun(id: string): Promise<RunHead | undefined>;
  /**
   * Gives run `id` a new status and lease if its head is still at `expectedVersion` and its lease
   * is free — none, expired on the store's clock, or the one `claim.replaces` names — moving the
   * version on by one; resolves whether it did (a resume's claim, an answer's).
   */
  claimRun(id: string, expectedVersion: number, claim: RunClaim): Promise<boolean>;
  /**
   * Moves the lease's expiry if `token` still holds it; resolves whether it did (the heartbeat).
   * Given `ttlMs`, the new expiry is the store's own now plus `ttlMs` (`expiresAt` is then unused).
   */
  renewLease(id: string, token: string, expiresAt: number, ttlMs?: number): Promise<boolean>;
  /**
   * Writes a run's records and its new status in one transaction, only while `commit.token` holds
   * its lease; resolves false, writing nothing, when it does not (another owner took the run). A
   * commit with neither a status nor a release leaves the head as it is (its version and `updatedAt`
   * too): it only checks the fence.
   */
  commit(id: string, commit: RunCommit): Promise<boolean>;
  /**
   * The heads of the stored runs that match `filter`, sorted by id; with `filter.page`, one page of
   * them newest first. The store filters and limits, not its caller.
   */
  listRuns(filter?: RunFilter): Promise<RunHead[]>;
  /**
   * Deletes the runs that match, with every record they own; resolves with their ids, sorted. A run
   * whose lease is live on the store's clock is never deleted, whatever its status: the check and
   * the delete are one atomic step, so a prune racing a heartbeat or a claim keeps the run.
   */
  prune(options: PruneOptions): Promise<string[]>;
  /** `prune`, telling the runs it kept back as well (optional: every built-in store has it). */
  pruneRuns?(options: PruneOptions): Promise<PruneResult>;
  /** Releases the store's connections or file; later calls reject with `store_closed`. */
  close(): Promise<void>;
}

/**
 * Prunes `store`, saying which runs it kept back as live: through `pruneRuns` where the store has it;
 * a store without it tells only what it deleted (`kept` empty).
 */
export async function pruneStore(store: Store, options: PruneOptions): Promise<PruneResult> {
  if (typeof store.pruneRuns === 'function') return store.pruneRuns(options);
  return { pruned: await store.prune(options), kept: [] };
}

/** Every method a {@link Store} has. */
const STORE_METHODS = [
  'put',
  'insert',
  'get',
  'list',
  'executions',
  'createRun',
  'readRun',
  'claimRun',
  'renewLease',
  'commit',
  'listRuns',
  'prune',
  'close',
] as const;

/** Whether `value` has every method of a {@link Store} (a user's own store passes too). */
export function isStore(value: unknown): value is Store {
  if (typeof value !== 'object' || value === null) return false;
  return STORE_METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === 'function');
}

/** The `store` option of whatever keeps runs: a {@link Store}, checked by its methods. */
export function storeOption(): z.ZodCustom<Store, Store> {
  return option<Store>(`a Store (${STORE_METHODS.join(', ')})`, isStore);
}

/** Refuses an option that should be a store and is not one (`invalid_option`, naming `where`). */
export function checkStore(where: string, value: unknown): void {
  if (value !== undefined && !isStore(value)) {
    throw new InvalidOptionError(where, 'store', `a Store (${STORE_METHODS.join(', ')})`, value);
  }
}

/** The format version stores write beside every value; a row of another version is refused. */
export const STORE_FORMAT_VERSION = 1;

/** NUL, which SQL text cannot hold, and lone surrogates, which UTF-8 turns into U+FFFD (merging ids). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is an id or key every store keeps exactly: non-empty, no NUL, no lone surrogate. */
function storable(text: unknown): boolean {
  return typeof text === 'string' && text !== '' && !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * Checks an address before a store uses it: a known collection, an id and key every store keeps
 * exactly (`executionId` left out for a call about a whole collection).
 */
export function checkAddress(store: string, collection: string, executionId?: string, key?: string): void {
  if (!(STORE_COLLECTIONS as readonly string[]).includes(collection)) {
    throw new InvalidOptionError(store, 'collection', `one of ${STORE_COLLECTIONS.join(', ')}`, collection);
  }
  const expected = 'a non-empty string without NUL or lone surrogates';
  if (executionId !== undefined && !storable(executionId)) {
    throw new InvalidOptionError(store, 'executionId', expected, executionId);
  }
  if (key !== undefined && !storable(key)) throw new InvalidOptionError(store, 'key', expected, key);
}

/** A value as stores write it: JSON text. Throws `invalid_option` for what JSON cannot carry. */
export function encodeValue(store: string, value: JsonValue): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidOptionError(store, 'value', 'a JSON value', (error as Error).message);
  }
  if (text === undefined) throw new InvalidOptionError(store, 'value', 'a JSON value', value);
  return text;
}

/** `value` as JSON keeps it (what JSON cannot carry is dropped the way `JSON.stringify` drops it). */
export function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Where a stored row came from, for the errors that name it. */
export interface RowAddress {
  collection: string;
  executionId: string;
  key: string;
}

/** Reads a stored row back: checks its format version and parses its JSON text. */
export function decodeValue(address: RowAddress, version: unknown, text: unknown): JsonValue {
  if (version !== STORE_FORMAT_VERSION) {
    throw new SnapshotVersionError(
      `Stored record ${address.collection}/${address.executionId}/${address.key}`,
      version,
    );
  }
  if (typeof text !== 'string') {
    throw new CorruptSnapshotError(address.collection, address.executionId, address.key, 'no JSON text');
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new CorruptSnapshotError(
      address.collection,
      address.executionId,
      address.key,
      (error as Error).message,
    );
  }
}

/** Tracks whether a store was closed, so every call after `close` fails the same clear way. */
export class OpenState {
  #closed = false;

  constructor(private readonly store: string) {}

  get closed(): boolean {
    return this.#closed;
  }

  /** Throws `store_closed` once the store was closed. */
  check(): void {
    if (this.#closed) throw new StoreClosedError(this.store);
  }

  /** What every store call checks first: the store is open, and the address is one it keeps. */
  use(collection: string, executionId?: string, key?: string): void {
    this.check();
    checkAddress(this.store, collection, executionId, key);
  }

  close(): void {
    this.#closed = true;
  }
}
