import type { Redis } from 'ioredis';
import { InvalidOptionError } from '../errors.js';
import { REDIS_STORE } from './redis-keys.js';
import { checkConnectTimeout } from './server-connection.js';

const NAME = REDIS_STORE;

/** Options every `RedisStore` accepts, whichever way it connects. */
export interface RedisStoreBaseOptions {
  /** The first segment of every key the store writes; non-empty, without ':'. @default 'statecrew' */
  prefix?: string;
  /**
   * Seconds each record and its execution's index, and each run's head, live after their last write
   * (a commit or a heartbeat writes its run's head). @default undefined (forever)
   */
  ttlSeconds?: number;
  /** How long a connection the store opens may take before `store_unavailable` (url only). @default 5000 */
  connectTimeoutMs?: number;
}

/**
 * How a `RedisStore` connects: a `redis://` or `rediss://` URL (the store owns that client and
 * quits it on `close`) or an ioredis client of yours (left open on `close`). Exactly one of the two.
 */
export type RedisStoreOptions = RedisStoreBaseOptions &
  ({ url: string; client?: never } | { client: Redis; url?: never });

/** The options, checked: `invalid_option` naming the first that is wrong. */
export function checkOptions(
  options: RedisStoreOptions,
): RedisStoreBaseOptions & { url?: string; client?: Redis } {
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
  checkConnectTimeout(NAME, connectTimeoutMs);
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
