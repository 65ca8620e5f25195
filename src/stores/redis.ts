import { Redis } from 'ioredis';
import { CorruptSnapshotError, InvalidOptionError, StoreUnavailableError } from '../errors.js';
import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  STORE_FORMAT_VERSION,
  type Store,
  type StoreCollection,
  type StoredRecord,
} from './store.js';

const NAME = 'RedisStore';
/** Reconnections tried after an established connection drops; a first connection is tried once. */
const RECONNECT_ATTEMPTS = 3;
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
const UNAVAILABLE_MESSAGES = ['Connection is closed', "Stream isn't writeable", 'connect ETIMEDOUT'];

/**
 * Writes one record atomically. KEYS: record hash, execution index, sequence counter. ARGV: format
 * version, JSON text, updated ms, index member, TTL seconds (0 = none), and `insert` to write only
 * where no record is. The seq is taken once, on the first write, so a rewrite keeps its place.
 */
const WRITE_SCRIPT = `
if ARGV[6] == 'insert' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local seq = redis.call('HGET', KEYS[1], 'seq')
if not seq then
  seq = redis.call('INCR', KEYS[3])
  redis.call('HSET', KEYS[1], 'seq', seq)
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'value', ARGV[2], 'at', ARGV[3])
redis.call('ZADD', KEYS[2], seq, ARGV[4])
local ttl = tonumber(ARGV[5])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
`;

/** Options every {@link RedisStore} accepts, whichever way it connects. */
export interface RedisStoreBaseOptions {
  /** The first segment of every key the store writes; non-empty, without ':'. @default 'statecrew' */
  prefix?: string;
  /** Seconds each record and its execution's index live after their last write. @default undefined (forever) */
  ttlSeconds?: number;
  /** How long a connection the store opens may take before `store_unavailable` (url only). @default 5000 */
  connectTimeoutMs?: number;
}

/**
 * How a {@link RedisStore} connects: a `redis://` or `rediss://` URL (the store owns that client and
 * quits it on `close`) or an ioredis client of yours (left open on `close`). Exactly one of the two.
 */
export type RedisStoreOptions = RedisStoreBaseOptions &
  ({ url: string; client?: never } | { client: Redis; url?: never });

/** The Redis keys that hold one record, as {@link RedisStore} lays them out. */
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

function indexKey(prefix: string, collection: string, id: string): string {
  return `${prefix}:index:${collection}:${id}`;
}

function recordKey(prefix: string, collection: string, id: string, member: string): string {
  return `${prefix}:${collection}:${id}:${member}`;
}

/**
 * A store in Redis: each record a hash, each execution a sorted set of its keys in first-write order
 * (layout: {@link redisRecordKeys}). Writes are single Lua scripts, so they are atomic across
 * writers; an optional TTL expires finished runs. Calls fail fast with `store_unavailable` when the
 * server cannot be reached: a connection is tried once per call, a dropped one a few times.
 * Constructing the store does not connect. One record's keys span hash slots: a standalone server
 * (or a replicated one), not Redis Cluster.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'statecrew', ttlSeconds: 86_400 });
 * // or, sharing a client of yours (not closed by close): new RedisStore({ client })
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly #open = new OpenState(NAME);
  readonly #client: Redis;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #where: string;
  #connecting: Promise<void> | undefined;
  /** Whether the owned client's current connection got ready: only such a connection is retried. */
  #live = false;
  #lastError: unknown;

  constructor(options: RedisStoreOptions) {
    const { url, client, prefix = 'statecrew', ttlSeconds, connectTimeoutMs = 5000 } = checkOptions(options);
    this.#prefix = prefix;
    this.#ttl = ttlSeconds ?? 0;
    this.#owned = client === undefined;
    this.#client = client ?? this.#createClient(url ?? '', connectTimeoutMs);
    const { host, port, path } = this.#client.options;
    this.#where = path ? path : `${host ?? 'localhost'}:${port ?? 6379}`;
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    await this.#write(collection, executionId, key, value, 'put');
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return (await this.#write(collection, executionId, key, value, 'insert')) === 1;
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const keys = redisRecordKeys(this.#prefix, collection, executionId, key);
    const hash = await this.#run((client) => client.hgetall(keys.record));
    return isEmpty(hash) ? undefined : toRecord(collection, executionId, key, hash);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const id = escapePart('executionId', executionId);
    const index = indexKey(this.#prefix, collection, id);
    const hashes = await this.#run(async (client) => {
      const members = await client.zrange(index, '0', '-1');
      if (members.length === 0) return [];
      const replies = await client
        .pipeline(members.map((m) => ['hgetall', recordKey(this.#prefix, collection, id, m)]))
        .exec();
      return members.map((member, i) => {
        const [error, hash] = replies?.[i] ?? [new Error('no reply'), undefined];
        if (error) throw error;
        return { key: unescapePart(member), hash: hash as Record<string, string> };
      });
    });
    // A record that expired before its index is simply gone, as it would be from `get`.
    return hashes
      .filter(({ hash }) => !isEmpty(hash))
      .map(({ key, hash }) => toRecord(collection, executionId, key, hash));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const head = indexKey(this.#prefix, collection, '');
    const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const ids = new Set<string>();
    await this.#run(async (client) => {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        for (const key of keys) ids.add(unescapePart(key.slice(head.length)));
        cursor = next;
      } while (cursor !== '0');
    });
    return [...ids].sort();
  }

  async close(): Promise<void> {
    if (this.#open.closed) return;
    this.#open.close();
    if (!this.#owned) return;
    const client = this.#client;
    if (client.status === 'ready') {
      await client.quit().catch(() => client.disconnect());
    } else if (client.status !== 'end') {
      // Never reached (or reconnecting): nothing to say goodbye to, so stop at once.
      client.disconnect();
    }
  }

  async #write(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
    mode: 'put' | 'insert',
  ): Promise<unknown> {
    this.#open.use(collection, executionId, key);
    const text = encodeValue(NAME, value);
    const keys = redisRecordKeys(this.#prefix, collection, executionId, key);
    const args = [STORE_FORMAT_VERSION, text, Date.now(), keys.member, this.#ttl, mode];
    return this.#run((client) => client.eval(WRITE_SCRIPT, 3, keys.record, keys.index, keys.seq, ...args));
  }

  /** Runs commands once connected, naming an unreachable server as such; other errors pass through. */
  async #run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    try {
      await this.#connect();
      return await commands(this.#client);
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      // "Connection is closed" says little; the socket's own error (ECONNREFUSED…) says why.
      const closed = error instanceof Error && error.message.includes('Connection is closed');
      const cause = closed && this.#lastError !== undefined ? this.#lastError : error;
      throw new StoreUnavailableError(NAME, this.#where, cause);
    }
  }

  /** Connects an owned client that is not connected, once for concurrent calls; a client of yours is yours. */
  async #connect(): Promise<void> {
    const client = this.#client;
    if (
      this.#owned &&
      this.#connecting === undefined &&
      (client.status === 'wait' || client.status === 'end')
    ) {
      this.#live = false;
      this.#lastError = undefined;
      this.#connecting = client.connect().finally(() => {
        this.#connecting = undefined;
      });
    }
    await this.#connecting;
  }

  #createClient(url: string, connectTimeoutMs: number): Redis {
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: connectTimeoutMs,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) =>
        this.#live && times <= RECONNECT_ATTEMPTS ? Math.min(100 * 2 ** times, 1000) : null,
    });
    // Connection errors reach the caller as store_unavailable; unheard, ioredis would print each one.
    client.on('error', (error: unknown) => {
      this.#lastError = error;
    });
    client.on('ready', () => {
      this.#live = true;
    });
    return client;
  }
}

function checkOptions(options: RedisStoreOptions): RedisStoreBaseOptions & { url?: string; client?: Redis } {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(NAME, 'options', 'an object with a url or a client', options);
  }
  const { url, client, prefix, ttlSeconds, connectTimeoutMs } = options;
  if ((url === undefined) === (client === undefined)) {
    const received = url === undefined ? 'neither' : 'both';
    throw new InvalidOptionError(NAME, 'url', 'given, or else a client (exactly one of them)', received);
  }
  if (url !== undefined && !isRedisUrl(url)) {
    throw new InvalidOptionError(NAME, 'url', 'a redis:// or rediss:// URL', url);
  }
  if (client !== undefined && (typeof client?.eval !== 'function' || typeof client.pipeline !== 'function')) {
    throw new InvalidOptionError(NAME, 'client', 'an ioredis Redis client', client);
  }
  // ioredis would prefix command keys but not SCAN patterns, so listing would find nothing.
  if (client?.options.keyPrefix) {
    throw new InvalidOptionError(
      NAME,
      'client',
      'a client without keyPrefix (use prefix)',
      client.options.keyPrefix,
    );
  }
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === '' || prefix.includes(':'))) {
    throw new InvalidOptionError(NAME, 'prefix', "a non-empty string without ':'", prefix);
  }
  if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new InvalidOptionError(NAME, 'ttlSeconds', 'a positive whole number of seconds', ttlSeconds);
  }
  if (
    connectTimeoutMs !== undefined &&
    (typeof connectTimeoutMs !== 'number' || !Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0)
  ) {
    throw new InvalidOptionError(
      NAME,
      'connectTimeoutMs',
      'a positive number of milliseconds',
      connectTimeoutMs,
    );
  }
  return options;
}

function isRedisUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'redis:' || protocol === 'rediss:';
  } catch {
    return false;
  }
}

/** `encodeURIComponent`, plus the five marks it leaves raw, among them the glob character `*`. */
function escapePart(option: string, text: string): string {
  let escaped: string;
  try {
    escaped = encodeURIComponent(text);
  } catch {
    // A lone surrogate has no UTF-8 form: writing it lossily would merge distinct ids.
    throw new InvalidOptionError(NAME, option, 'a string without lone surrogates', text);
  }
  return escaped.replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The text an escaped part stands for; a part another writer left malformed is shown as it is. */
function unescapePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function isEmpty(hash: Record<string, string>): boolean {
  return Object.keys(hash).length === 0;
}

/** A record from its hash: `v` is compared as a number, so `'1'` reads as version 1. */
function toRecord(
  collection: string,
  executionId: string,
  key: string,
  hash: Record<string, string>,
): StoredRecord {
  const { v, value: text, at } = hash;
  const version = v !== undefined && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  const value = decodeValue({ collection, executionId, key }, version, text);
  if (at === undefined || !/^\d+$/.test(at)) {
    throw new CorruptSnapshotError(collection, executionId, key, 'no updated time');
  }
  return { key, value, updatedAt: Number(at) };
}

/** Whether an error says the server cannot be reached (rather than that a command failed). */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_ERRNOS.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message));
}
