import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { InvalidOptionError } from '../errors.js';
import type { NodeFailure } from '../machines/lifecycle.js';
import { parseOptions } from '../options/parse.js';
import type { JsonValue } from '../stores/store.js';
import { cancelRunJob } from './cancel.js';
import { type SubmitRunOptions, submitRunOptionsSchema } from './submit-run-options.js';

export type { SubmitRunOptions } from './submit-run-options.js';

import {
  connected,
  probe,
  type QueueOptions,
  type ResolvedQueueOptions,
  resolveQueueOptions,
  runCancelChannel,
  runQueueName,
} from './connection.js';

/** A whole run on the queue: which definition, its inputs, its execution id, and whether it keeps its events. */
export interface RunJob {
  name: string;
  inputs: Record<string, unknown>;
  id: string;
  /** `'store'`: the worker runs it with `events: 'store'` (a job without it keeps none). */
  events?: 'store';
}

/**
 * Whether a submitted run keeps its events: `events: 'store'` yes, none no; an option `submitRun`
 * does not know, or another `events`, is `invalid_option` naming `submitRun`.
 */
function keepsEvents(options: SubmitRunOptions): boolean {
  return parseOptions(submitRunOptionsSchema, 'submitRun', options).events === 'store';
}

/** How a whole run ended, as the worker that ran it tells. */
export interface RunJobResult {
  id: string;
  name: string;
  kind: 'crew' | 'flow' | undefined;
  /**
   * The run's status (`paused` for a flow waiting for a human); `aborted` when its job was cancelled
   * ({@link RunQueue.cancelRun}); `failed` when it could not run.
   */
  status: string;
  output: JsonValue;
  worker: string;
  /** Why it could not run (an unknown definition, a rejected kickoff). */
  failure?: NodeFailure;
}

/** A submitted run: its id, and its end as the worker that ran it tells. */
export interface SubmittedRun {
  id: string;
  result: Promise<RunJobResult>;
}

/** Where whole runs are submitted; `close` releases its connections. */
export interface RunQueue {
  /**
   * Enqueues a run of the crew or flow named `name` with `inputs`, for any worker that holds that
   * definition; resolves once it is on the queue. The run's id is `options.id`, else a new UUID;
   * `events: 'store'` keeps its events in the worker's store (a resumed or recovered run keeps them
   * too). An option it does not know, or another `events`, rejects with `invalid_option`.
   */
  submitRun(
    name: string,
    inputs?: Record<string, unknown>,
    options?: SubmitRunOptions,
  ): Promise<SubmittedRun>;
  /**
   * Asks the worker that runs run `id` as a job of this queue to abort it (BullMQ's `cancelJob` on
   * that worker, reached over Redis Pub/Sub; the run is kept as `aborted`), and resolves true once the
   * job ended, whichever way; false, asking nothing, when no worker runs that job now. An id that is
   * not a non-empty string rejects with `invalid_option`.
   */
  cancelRun(id: string, reason?: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The run queue's BullMQ parts: the queue, and the events that tell of each run's end. */
interface RunQueueParts {
  queue: Queue;
  events: QueueEvents;
}

/** A run the queue failed itself (stalled too often, a lost lock), as a result. */
const failedByQueue = (jobId: string, failedReason: string): RunJobResult => ({
  id: jobId,
  name: '',
  kind: undefined,
  status: 'failed',
  output: null,
  worker: '',
  failure: { message: `The queue failed the run: ${failedReason}`, retryable: true },
});

/** Makes the run queue's parts once Redis answered; each run's end goes to its waiter in `waiting`. */
async function openParts(
  o: ResolvedQueueOptions,
  waiting: Map<string, (result: RunJobResult) => void>,
): Promise<RunQueueParts> {
  const lastEventId = await probe(o, runQueueName(o));
  const queue = new Queue(runQueueName(o), { connection: o.connection, prefix: o.prefix });
  const events = new QueueEvents(runQueueName(o), {
    connection: o.connection,
    prefix: o.prefix,
    lastEventId,
  });
  queue.on('error', () => {});
  events.on('error', () => {});
  events.on('completed', ({ jobId, returnvalue }) => {
    waiting.get(jobId)?.(returnvalue as unknown as RunJobResult);
    waiting.delete(jobId);
  });
  events.on('failed', ({ jobId, failedReason }) => {
    waiting.get(jobId)?.(failedByQueue(jobId, failedReason));
    waiting.delete(jobId);
  });
  await connected(
    o.queue,
    Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
    o.connectTimeoutMs,
  );
  return { queue, events };
}

/**
 * Submits whole crew and flow runs to a fleet of workers (`createWorker({ definitions })`) through
 * BullMQ; each run's end is heard through queue events, and `cancelRun` aborts one a worker runs. A
 * run is a job keyed by its id: submitted twice, it runs once.
 *
 * @example
 * const runs = createRunQueue({ connection: 'redis://127.0.0.1:6379', queue: 'research' });
 * const { id, result } = await runs.submitRun('research', { topic: 'AI' });
 * console.log(id, (await result).status);
 */
export function createRunQueue(options: QueueOptions = {}): RunQueue {
  const o = resolveQueueOptions('createRunQueue', options);
  const waiting = new Map<string, (result: RunJobResult) => void>();
  let parts: Promise<RunQueueParts> | undefined;
  let publisher: Redis | undefined;
  const open = () => {
    parts ??= openParts(o, waiting).catch((error: unknown) => {
      parts = undefined;
      throw error;
    });
    return parts;
  };
  const publish = (message: string) => {
    // Opened on the first cancel: a process that only submits runs never needs it.
    if (publisher === undefined) {
      publisher = new Redis(o.connection);
      publisher.on('error', () => {});
    }
    return publisher.publish(runCancelChannel(o), message);
  };
  return {
    async submitRun(name, inputs = {}, submit = {}) {
      const keep = keepsEvents(submit);
      const { queue } = await open();
      const id = submit.id ?? randomUUID();
      const result = new Promise<RunJobResult>((resolve) => waiting.set(id, resolve));
      const job: RunJob = { name, inputs, id, ...(keep ? { events: 'store' as const } : {}) };
      await queue.add('run', job, {
        jobId: id,
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: 1000,
      });
      return { id, result };
    },
    async cancelRun(id, reason = 'The run was aborted') {
      if (typeof id !== 'string' || id === '')
        throw new InvalidOptionError('cancelRun', 'id', 'a run id', id);
      const { queue, events } = await open();
      return cancelRunJob(queue, events, publish, id, String(reason));
    },
    async close() {
      publisher?.disconnect();
      const made = await parts?.catch(() => undefined);
      if (made !== undefined) await Promise.allSettled([made.events.close(), made.queue.close()]);
    },
  };
}
