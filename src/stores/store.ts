import {
  CorruptSnapshotError,
  InvalidOptionError,
  SnapshotVersionError,
  StoreClosedError,
} from '../errors.js';

/** A value a store keeps: what `JSON.stringify` writes and `JSON.parse` reads back unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * What statecrew keeps, each record addressed by collection, execution id and key:
 *   `flow_runs`          a flow run's snapshot (key `run`)
 *   `crew_task_results`  one record per completed task run of a crew (key: the node id)
 *   `crew_executions`    a crew run's document, written when it ends (key `run`)
 */
export const STORE_COLLECTIONS = ['flow_runs', 'crew_task_results', 'crew_executions'] as const;

/** One of {@link STORE_COLLECTIONS}. */
export type StoreCollection = (typeof STORE_COLLECTIONS)[number];

/** A record as a store returns it. */
export interface StoredRecord {
  key: string;
  value: JsonValue;
  /** When it was last written, in epoch milliseconds (the store's clock). */
  updatedAt: number;
}

/**
 * Where durable runs live: a small key-value contract every store implements the same way (one
 * contract suite checks them all). Values are JSON; a store writes them with its format version and
 * refuses rows it cannot read (`corrupt_snapshot`) or whose version it does not know
 * (`snapshot_version`). Every method rejects after `close` (`store_closed`) and when its server
 * cannot be reached (`store_unavailable`), never retrying forever.
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
  /** Writes a record only if none has its address; resolves whether it wrote (claims an id). */
  insert(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<boolean>;
  /** The record at an address, if there is one. */
  get(collection: StoreCollection, executionId: string, key: string): Promise<StoredRecord | undefined>;
  /** Every record of one execution in a collection, in the order they were first written. */
  list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]>;
  /** The execution ids that have records in a collection, sorted. */
  executions(collection: StoreCollection): Promise<string[]>;
  /** Releases the store's connections or file; later calls reject with `store_closed`. */
  close(): Promise<void>;
}

/** Whether `value` has every method of a {@link Store} (a user's own store passes too). */
export function isStore(value: unknown): value is Store {
  if (typeof value !== 'object' || value === null) return false;
  const methods = ['put', 'insert', 'get', 'list', 'executions', 'close'] as const;
  return methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function');
}

/** Refuses an option that should be a store and is not one (`invalid_option`, naming `where`). */
export function checkStore(where: string, value: unknown): void {
  if (value !== undefined && !isStore(value)) {
    throw new InvalidOptionError(
      where,
      'store',
      'a Store (put, insert, get, list, executions, close)',
      value,
    );
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
