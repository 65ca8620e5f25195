import type { Redis, RedisOptions } from 'ioredis';
import { MissingDependencyError, StoreClosedError, StoreUnavailableError } from '../errors.js';
import { REDIS_STORE } from './redis-keys.js';
import { UNREACHABLE_ERRNOS } from './server-connection.js';

/** Reconnections tried after an established connection drops; a first connection is tried once. */
const RECONNECT_ATTEMPTS = 3;
const UNAVAILABLE_MESSAGES = ['Connection is closed', "Stream isn't writeable", 'connect ETIMEDOUT'];

type RedisClass = typeof import('ioredis').Redis;

let ioredis: Promise<RedisClass> | undefined;

/**
 * ioredis's client class, imported the first time a store opens a connection of its own: ioredis is
 * an optional peer dependency, so importing the store never needs it. Without it: `missing_dependency`.
 */
export function loadIoredis(): Promise<RedisClass> {
  const loading =
    ioredis ??
    import('ioredis').then(
      (module) => module.Redis,
      (error: unknown) => {
        // Not kept: installing the package later lets the next call succeed.
        ioredis = undefined;
        const code = (error as { code?: unknown }).code;
        if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
          throw new MissingDependencyError(REDIS_STORE, 'ioredis', error);
        }
        throw error;
      },
    );
  ioredis = loading;
  return loading;
}

/** Where a store connects: a URL (its own client, quit on close) or a client of the user's (left open). */
export type RedisSource = { url: string; connectTimeoutMs: number } | { client: Redis };

/**
 * A store's way to its server: creates and connects its own client on first use, once for concurrent
 * calls, and names a server it cannot reach (or a database the server refuses) `store_unavailable`.
 */
export class RedisConnection {
  readonly #source: RedisSource;
  #client: Redis | undefined;
  #where = '';
  #connecting: Promise<void> | undefined;
  /** Whether the owned client's current connection got ready: only such a connection is retried. */
  #live = false;
  #lastError: unknown;
  #closed = false;

  constructor(source: RedisSource) {
    this.#source = source;
    if ('client' in source) {
      this.#client = source.client;
      this.#where = whereOf(source.client.options);
    }
  }

  /** Runs commands once connected, naming an unreachable server as such; other errors pass through. */
  async run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await commands(await this.#connected());
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      // "Connection is closed" says little; the socket's own error (ECONNREFUSED…) says why.
      const closed = error instanceof Error && error.message.includes('Connection is closed');
      const cause = closed && this.#lastError !== undefined ? this.#lastError : error;
      throw new StoreUnavailableError(REDIS_STORE, this.#where, cause);
    }
  }

  /** Quits a client of the store's own; a client of the user's stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    if (!('url' in this.#source) || client === undefined) return;
    if (client.status === 'ready') {
      await client.quit().catch(() => client.disconnect());
    } else if (client.status !== 'end') {
      // Never reached (or reconnecting): nothing to say goodbye to, so stop at once.
      client.disconnect();
    }
  }

  /** The client, connected if it is the store's own (a client of the user's connects as the user set it up). */
  async #connected(): Promise<Redis> {
    const source = this.#source;
    if (!('url' in source)) return source.client;
    const client = this.#client ?? (await this.#create(source.url, source.connectTimeoutMs));
    if (this.#connecting === undefined && (client.status === 'wait' || client.status === 'end')) {
      this.#live = false;
      this.#lastError = undefined;
      this.#connecting = client.connect().finally(() => {
        this.#connecting = undefined;
      });
    }
    await this.#connecting;
    return client;
  }

  async #create(url: string, connectTimeoutMs: number): Promise<Redis> {
    const Redis = await loadIoredis();
    // A call that began before close must not open a connection nothing would quit.
    if (this.#closed) throw new StoreClosedError(REDIS_STORE);
    if (this.#client !== undefined) return this.#client;
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
      // ioredis reports a database index the server refuses only as an error event, then carries on
      // in database 0, where the store would read and write another database's keys: drop it instead.
      if (isRefusedSelect(error)) client.disconnect();
    });
    client.on('ready', () => {
      this.#live = true;
    });
    this.#client = client;
    this.#where = whereOf(client.options);
    return client;
  }
}

/** The server as errors name it: host and port (or socket path), and the database if not the first. */
function whereOf({ host, port, path, db }: RedisOptions): string {
  const server = path ? path : `${host ?? 'localhost'}:${port ?? 6379}`;
  return db ? `${server}/${db}` : server;
}

/** Whether an error is the server refusing the SELECT of the connection's database. */
function isRefusedSelect(error: unknown): boolean {
  return (error as { command?: { name?: unknown } } | undefined)?.command?.name === 'select';
}

/** Whether an error says the server cannot be reached (rather than that a command failed). */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_ERRNOS.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError' || isRefusedSelect(error)) return true;
  return UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message));
}
