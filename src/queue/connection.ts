import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { InvalidOptionError, QueueUnavailableError } from '../errors.js';
import { parseOptions } from '../options/parse.js';
import { type QueueOptions, queueOptionsSchema } from './queue-options.js';

export type { QueueConnection, QueueOptions } from './queue-options.js';

/** The options as BullMQ and ioredis take them. */
export interface ResolvedQueueOptions {
  connection: ConnectionOptions & { maxRetriesPerRequest: null };
  queue: string;
  prefix: string;
  connectTimeoutMs: number;
}

/** Checks and fills in queue options (`invalid_option` naming `where`); a URL becomes connection options. */
export function resolveQueueOptions(where: string, options: QueueOptions): ResolvedQueueOptions {
  const {
    connection: raw,
    queue,
    prefix,
    connectTimeoutMs,
  } = parseOptions(queueOptionsSchema, where, options);
  const connection = typeof raw === 'string' ? fromUrl(where, raw) : { ...raw };
  return {
    // BullMQ's workers block on Redis: ioredis must not give up on a command while they do.
    connection: { ...connection, maxRetriesPerRequest: null },
    queue,
    prefix,
    connectTimeoutMs,
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
 * of the last event in the events stream of queue `eventsOf` ('0-0' when it has none): where a reader
 * of those events (`QueueEvents`, or the executor's `JobEvents`) starts so that it misses no event of
 * a job added after this.
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

/** A part of a job id: free of ':' and of the '.' that joins the parts. */
const part = (text: string) => encodeURIComponent(text).replace(/\./g, '%2E');

/** A BullMQ job id for a conversation: unique per execution, node and attempt, and free of ':'. */
export function jobIdOf(executionId: string, nodeId: string, attempt: number): string {
  return `${part(executionId)}.${part(nodeId)}.${attempt}`;
}
