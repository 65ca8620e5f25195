import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { InvalidOptionError, QueueUnavailableError } from '../errors.js';

/** Where a queue's Redis is: a `redis://` / `rediss://` URL, or ioredis connection options. */
export type QueueConnection =
  | string
  | { host?: string; port?: number; db?: number; password?: string; username?: string; tls?: object };

/** Options every queue part takes. */
export interface QueueOptions {
  /** The Redis server BullMQ runs on. @default 'redis://127.0.0.1:6379' */
  connection?: QueueConnection | undefined;
  /** The queue's name (no ':'). @default 'statecrew' */
  queue?: string | undefined;
  /** The first segment of BullMQ's keys. @default 'bull' */
  prefix?: string | undefined;
  /** How long connecting may take before `queue_unavailable`, in ms. @default 5000 */
  connectTimeoutMs?: number | undefined;
}

/** The options as BullMQ and ioredis take them. */
export interface ResolvedQueueOptions {
  connection: ConnectionOptions & { maxRetriesPerRequest: null };
  queue: string;
  prefix: string;
  connectTimeoutMs: number;
}

/** Checks and fills in queue options. */
export function resolveQueueOptions(where: string, options: QueueOptions): ResolvedQueueOptions {
  const queue = options.queue ?? 'statecrew';
  if (typeof queue !== 'string' || queue === '' || queue.includes(':')) {
    throw new InvalidOptionError(where, 'queue', "a non-empty name without ':'", queue);
  }
  const raw = options.connection ?? 'redis://127.0.0.1:6379';
  const connection = typeof raw === 'string' ? fromUrl(where, raw) : { ...raw };
  return {
    // BullMQ's workers block on Redis: ioredis must not give up on a command while they do.
    connection: { ...connection, maxRetriesPerRequest: null },
    queue,
    prefix: options.prefix ?? 'bull',
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
  };
}

function fromUrl(where: string, text: string): ConnectionOptions {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError(where, 'connection', 'a redis:// or rediss:// URL', text);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new InvalidOptionError(where, 'connection', 'a redis:// or rediss:// URL', text);
  }
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined;
  return {
    host: url.hostname || '127.0.0.1',
    port: url.port === '' ? 6379 : Number(url.port),
    ...(db === undefined || Number.isNaN(db) ? {} : { db }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Checks that Redis answers before any BullMQ part is made (a part whose server is not there waits,
 * and cannot be closed, until it is): one connection that gives up at once, a PING, and a quit.
 * Rejects with `queue_unavailable` when there is no answer within the timeout. Resolves with the id
 * of the last event in the events stream of queue `eventsOf` ('0-0' when it has none): where a
 * `QueueEvents` must start reading so that it misses no event of a job added after this.
 */
export async function probe(o: ResolvedQueueOptions, eventsOf: string = o.queue): Promise<string> {
  const client = new Redis({
    ...o.connection,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: o.connectTimeoutMs,
  });
  client.on('error', () => {});
  try {
    let last = '0-0';
    await connected(
      o.queue,
      client
        .connect()
        .then(() => client.xrevrange(`${o.prefix}:${eventsOf}:events`, '+', '-', 'COUNT', 1))
        .then((entries) => {
          last = entries[0]?.[0] ?? '0-0';
        }),
      o.connectTimeoutMs,
    );
    return last;
  } finally {
    client.disconnect();
  }
}

/** Waits for `ready` (a BullMQ part connecting), failing with `queue_unavailable` after the timeout. */
export async function connected(queue: string, ready: Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([ready, late]);
  } catch (error) {
    throw new QueueUnavailableError(queue, error);
  } finally {
    clearTimeout(timer);
  }
}

/** The Pub/Sub channel on which a run asks the workers to cancel a job. */
export const cancelChannel = (o: ResolvedQueueOptions) => `${o.prefix}:${o.queue}:statecrew-cancel`;

/** The queue of whole runs beside a conversation queue. */
export const runQueueName = (o: ResolvedQueueOptions) => `${o.queue}-runs`;

/** The Pub/Sub channel on which the workers are asked to abort the whole run a job of theirs runs. */
export const runCancelChannel = (o: ResolvedQueueOptions) => cancelChannel({ ...o, queue: runQueueName(o) });

/** A BullMQ job id for a conversation: unique per execution, node and attempt, and free of ':'. */
export function jobIdOf(executionId: string, nodeId: string, attempt: number): string {
  const part = (text: string) => encodeURIComponent(text).replace(/\./g, '%2E');
  return [executionId, nodeId, String(attempt)].map(part).join('.');
}
