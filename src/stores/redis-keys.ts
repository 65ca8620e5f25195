import { InvalidOptionError } from '../errors.js';
import {
  STORE_COLLECTIONS,
  STORED_RUN_STATUSES,
  type StoreCollection,
  type StoredRunStatus,
} from './store.js';

/** The name a `RedisStore` gives itself in its errors. */
export const REDIS_STORE = 'RedisStore';

/** The Redis keys that hold one record, as `RedisStore` lays them out. */
export interface RedisRecordKeys {
  /** The record's hash (`v`, `value`, `at`, `seq`): `<prefix>:<collection>:<executionId>:<key>`. */
  record: string;
  /** The execution's sorted set, scored by seq: `<prefix>:index:<collection>:<executionId>`. */
  index: string;
  /** The record's member in that index: its escaped key. */
  member: string;
  /** The counter each first write takes its seq from: `<prefix>:seq`. */
  seq: string;
}

/**
 * Where a record lives in Redis. The execution id and key are escaped with `encodeURIComponent`,
 * then `! ' ( ) * ~` as `%XX` too, so ':' and the glob characters `* ? [ ] \` never appear raw: ids
 * can neither collide nor match a SCAN pattern they should not.
 *
 * @example
 * redisRecordKeys('statecrew', 'crew_task_results', 'run:1', 'write').record
 * // 'statecrew:crew_task_results:run%3A1:write'
 */
export function redisRecordKeys(
  prefix: string,
  collection: StoreCollection,
  executionId: string,
  key: string,
): RedisRecordKeys {
  const id = escapePart('executionId', executionId);
  const member = escapePart('key', key);
  return {
    record: recordKey(prefix, collection, id, member),
    index: indexKey(prefix, collection, id),
    member,
    seq: `${prefix}:seq`,
  };
}

/** The Redis keys of one run's head, as `RedisStore` lays them out. */
export interface RedisRunKeys {
  /**
   * The head's hash, its fields those of `HeadRow` (a lease's absent when it has none):
   * `<prefix>:run:<id>`.
   */
  head: string;
  /** The run's member in the status sets: its escaped id. */
  member: string;
  /** Per status, the sorted set of the runs that have it, scored by `updated_at`: `<prefix>:runs:<status>`. */
  statuses: Record<StoredRunStatus, string>;
  /** Per collection, the index of the records the run owns there (as in {@link redisRecordKeys}). */
  indexes: Record<StoreCollection, string>;
  /** Per collection, what the run's record keys start with: `<prefix>:<collection>:<id>:`. */
  records: Record<StoreCollection, string>;
}

/**
 * Where a run's head lives in Redis: a hash beside the run's records, and an entry in the sorted set
 * of its status, so listing by status and pruning by age read those sets and never scan the keyspace.
 * The id is escaped as {@link redisRecordKeys} escapes it ('run' and 'runs' are no collection, so no
 * head key meets a record key).
 *
 * @example
 * redisRunKeys('statecrew', 'run:1').head             // 'statecrew:run:run%3A1'
 * redisRunKeys('statecrew', 'run:1').statuses.paused  // 'statecrew:runs:paused'
 */
export function redisRunKeys(prefix: string, id: string): RedisRunKeys {
  return runKeys(prefix, escapePart('id', id));
}

/** A run's keys from its member (its escaped id), as a status set lists it. */
export function runKeys(prefix: string, member: string): RedisRunKeys {
  return {
    head: headKey(prefix, member),
    member,
    statuses: statusSetKeys(prefix),
    indexes: perCollection((collection) => indexKey(prefix, collection, member)),
    records: perCollection((collection) => recordKey(prefix, collection, member, '')),
  };
}

/** A run's head: `<prefix>:run:<escaped id>`. */
export function headKey(prefix: string, member: string): string {
  return `${prefix}:run:${member}`;
}

/** The sorted set of every status, by status. */
export function statusSetKeys(prefix: string): Record<StoredRunStatus, string> {
  const keys = {} as Record<StoredRunStatus, string>;
  for (const status of STORED_RUN_STATUSES) keys[status] = `${prefix}:runs:${status}`;
  return keys;
}

function perCollection(key: (collection: StoreCollection) => string): Record<StoreCollection, string> {
  const keys = {} as Record<StoreCollection, string>;
  for (const collection of STORE_COLLECTIONS) keys[collection] = key(collection);
  return keys;
}

/** An execution's index: `<prefix>:index:<collection>:<escaped id>`. */
export function indexKey(prefix: string, collection: string, id: string): string {
  return `${prefix}:index:${collection}:${id}`;
}

/** A record's hash: `<prefix>:<collection>:<escaped id>:<escaped key>`. */
export function recordKey(prefix: string, collection: string, id: string, member: string): string {
  return `${prefix}:${collection}:${id}:${member}`;
}

/** `encodeURIComponent`, plus the five marks it leaves raw, among them the glob character `*`. */
export function escapePart(option: string, text: string): string {
  let escaped: string;
  try {
    escaped = encodeURIComponent(text);
  } catch {
    // A lone surrogate has no UTF-8 form: writing it lossily would merge distinct ids.
    throw new InvalidOptionError(REDIS_STORE, option, 'a string without lone surrogates', text);
  }
  return escaped.replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The text an escaped part stands for; a part another writer left malformed is shown as it is. */
export function unescapePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
