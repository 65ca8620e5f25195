import { z } from 'zod';
import { text } from '../options/fields.js';
import { option, unchecked } from '../options/option.js';
import type { QueueOptions } from '../queue/connection.js';
import type { Crew } from '../runtime/crew/crew.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../runtime/durable/graceful-stop.js';
import type { Runner } from '../runtime/durable/runner.js';
import { isStore, type Store } from '../stores/store.js';
import { DEFAULT_MAX_ACTIVE_RUNS } from './admission.js';
import type { ServedFlow, ServedList } from './definitions.js';

/** The default largest body: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The options of `createServer(...)`: each option's type, check, default and docs, once. */
export const serveOptionsSchema = z.strictObject({
  /** The crews served, as a list or a record keyed by each one's name. @default [] */
  crews: unchecked<ServedList<Crew>>().optional(),
  /** The flows served (any `createFlow(...)`), as a list or a record keyed by each one's name. @default [] */
  flows: unchecked<ServedList<ServedFlow>>().optional(),
  /** Where every run is kept: runs started over HTTP are durable. */
  store: option<Store>('a Store (runs are durable)', isStore),
  /**
   * What resumes runs whose process died, fires deadlines and schedules: a `createRunner(...)`
   * result (the caller closes it), or `false` for none. @default one over `store` with the served
   * definitions, closed with the server
   */
  runner: option<Runner | false>(
    'a createRunner result, or false',
    (r) => r === false || typeof (r as Partial<Runner> | null)?.close === 'function',
  ).optional(),
  /**
   * How long `close()` lets the runs in flight reach their next commit, in ms, before it abandons
   * their steps and gives their leases up (they are kept `running`, for any runner to resume).
   * @default 10000
   */
  shutdownGraceMs: option<number>(
    'a whole number of ms from 0',
    (n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647,
  ).default(DEFAULT_SHUTDOWN_GRACE_MS),
  /**
   * The most runs this server starts and runs at once (`POST /runs`, `POST /runs/wait`): a start
   * beyond it waits, in order of arrival, until one of them settles, so a burst queues rather than
   * stretching every run; `GET /admission` counts the active runs and the waiting starts. Runs
   * submitted to the run queue, and paused runs resumed, are not counted. @default 16
   */
  maxActiveRuns: option<number>(
    'a whole number of runs, at least 1',
    (n) => Number.isInteger(n) && (n as number) >= 1,
  ).default(DEFAULT_MAX_ACTIVE_RUNS),
  /** The bearer token every request must carry (`Authorization: Bearer <token>`). */
  token: text().optional(),
  /**
   * Serve without a token. Only for a server that listens on 127.0.0.1 alone: the caller promises
   * that no one else can reach it. @default false
   */
  insecureNoAuth: unchecked<boolean>().optional(),
  /** The origin allowed to call from a browser (CORS); none when absent. @default undefined */
  cors: option<string>(
    'an origin such as https://app.example.com',
    (o) => typeof o === 'string' && o !== '',
  ).optional(),
  /** The largest request body taken, in bytes (a 413 `payload_too_large` beyond it). @default 1048576 */
  bodyLimit: option<number>(
    'a whole number of bytes, at least 1',
    (n) => Number.isInteger(n) && (n as number) >= 1,
  ).default(DEFAULT_BODY_LIMIT),
  /**
   * Submit runs to the BullMQ run queue instead of running them here: a Redis URL, or queue options
   * (`statecrew worker` processes then run them). @default runs start in this process
   */
  queue: option<string | QueueOptions>(
    'a Redis URL, or queue options',
    (q) => typeof q === 'string' || (typeof q === 'object' && q !== null),
  ).optional(),
});

/** Options of {@link createServer}. */
export interface ServeOptions extends z.input<typeof serveOptionsSchema> {}

/** A server's options as checked, with their defaults. */
export type ServeSettings = z.output<typeof serveOptionsSchema>;
