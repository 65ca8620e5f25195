import { z } from 'zod';
import { option, unchecked } from '../options/option.js';

/** Where a queue's Redis is: a `redis://` / `rediss://` URL, or ioredis connection options. */
export type QueueConnection =
  | string
  | { host?: string; port?: number; db?: number; password?: string; username?: string; tls?: object };

/** The options every queue part takes: each option's type, check, default and docs, once. */
export const queueOptionsSchema = z.strictObject({
  /** The Redis server BullMQ runs on. @default 'redis://127.0.0.1:6379' */
  connection: unchecked<QueueConnection>().default('redis://127.0.0.1:6379'),
  /** The queue's name (no ':'). @default 'statecrew' */
  queue: option<string>(
    "a non-empty name without ':'",
    (q) => typeof q === 'string' && q !== '' && !q.includes(':'),
  ).default('statecrew'),
  /** The first segment of BullMQ's keys. @default 'bull' */
  prefix: unchecked<string>().default('bull'),
  /** How long connecting may take before `queue_unavailable`, in ms. @default 5000 */
  connectTimeoutMs: unchecked<number>().default(5000),
});

/** Options every queue part takes. */
export interface QueueOptions extends z.input<typeof queueOptionsSchema> {}
