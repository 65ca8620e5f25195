import { type JobsOptions, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { toFailure } from '../actors/failure.js';
import { QueueUnavailableError } from '../errors.js';
import { AddBatch } from './add-batch.js';
import { cancelChannel, connected, probe, type ResolvedQueueOptions } from './connection.js';
import { JobEvents, type WaitingJob } from './job-events.js';

export type { JobResult, WaitingJob } from './job-events.js';

/** The BullMQ parts of an executor, made once Redis answered. */
interface Parts {
  queue: Queue;
  events: JobEvents;
}

/** How long closing parts whose server is gone may take before they are dropped. */
const CLOSE_GRACE_MS = 2000;

/**
 * A queue executor's hold on BullMQ: its queue and queue events, made on first use (again after a
 * first try found no server), the jobs waiting for their end, whether the connection was lost (which
 * fails them all, and every later attempt), and the publisher that asks the workers to cancel a job.
 */
export class ExecutorConnection {
  /** The jobs in flight, by job id. */
  readonly waiting = new Map<string, WaitingJob>();
  /** Why the connection to Redis was lost, once it was after it had been up. */
  #lost: unknown;
  #closing = false;
  #parts: Promise<Parts> | undefined;
  /** The parts once made: what an attempt adds its job to without waiting a turn. */
  #made: Parts | undefined;
  /** Opened on the first abort: how the workers are asked to cancel a job. */
  #publisher: Redis | undefined;
  /** The adds of one turn of the event loop, sent together. */
  #adds: AddBatch | undefined;

  constructor(readonly options: ResolvedQueueOptions) {}

  /** The queue to add jobs to when it is up and was not lost; else undefined (ask {@link queue}). */
  get openQueue(): Queue | undefined {
    return this.#lost === undefined ? this.#made?.queue : undefined;
  }

  /** The queue to add jobs to; rejects with `queue_unavailable` when Redis does not answer or was lost. */
  async queue(): Promise<Queue> {
    const { queue } = await this.#open();
    if (this.#lost !== undefined) throw new QueueUnavailableError(this.options.queue, this.#lost);
    return queue;
  }

  /**
   * Adds a job to `queue`, with the others added in the same turn of the event loop (one round trip
   * for them all); resolves once it is on the queue.
   */
  add(queue: Queue, name: string, data: unknown, opts: JobsOptions): Promise<void> {
    if (this.#adds?.queue !== queue) this.#adds = new AddBatch(queue);
    return this.#adds.add(name, data, opts);
  }

  /** Removes job `jobId` if it still waits, and asks the workers to cancel it if it runs. */
  async cancel(queue: Queue, jobId: string): Promise<void> {
    // A job whose add waits for its batch is taken out of it: it never reaches the queue.
    if (this.#adds?.drop(jobId) === true) return;
    // The run is over either way: a job left running only wastes its worker's time.
    if (this.#publisher === undefined) {
      this.#publisher = new Redis(this.options.connection);
      this.#publisher.on('error', () => {});
    }
    // An active job is cancelled by its worker; a waiting one is removed (an active one cannot be).
    await this.#publisher.publish(cancelChannel(this.options), jobId).catch(() => {});
    await queue.remove(jobId).catch(() => {});
  }

  /** Releases the connections: gracefully, or past a grace by dropping them (their server is gone). */
  async close(): Promise<void> {
    this.#closing = true;
    this.#publisher?.disconnect();
    const made = await this.#parts?.catch(() => undefined);
    if (made === undefined) return;
    const closed = Promise.allSettled([made.events.close(), made.queue.close()]);
    // Parts whose server is gone would wait for it: past the grace, they are dropped.
    const late = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
    if ((await Promise.race([closed.then(() => true), late.then(() => false)])) === false) {
      // Not awaited: a disconnect waits for a server that is not there too.
      void made.queue.disconnect().catch(() => {});
    }
  }

  #open(): Promise<Parts> {
    this.#parts ??= makeParts(this.options, this.waiting, (error) => this.#lose(error)).then(
      (parts) => {
        this.#made = parts;
        return parts;
      },
      (error: unknown) => {
        // A server that could not be reached at first may be there for the next attempt.
        this.#parts = undefined;
        throw error;
      },
    );
    return this.#parts;
  }

  /** The connection was lost (not closed): every job in flight fails with `queue_unavailable`. */
  #lose(error: unknown): void {
    if (this.#closing) return;
    this.#lost ??= error;
    const failure = toFailure(new QueueUnavailableError(this.options.queue, this.#lost));
    for (const pending of this.waiting.values()) pending.resolve({ ok: false, failure });
    this.waiting.clear();
  }
}

/** The queue to add jobs to and the events that tell of their ends, once Redis answered. */
async function makeParts(
  o: ResolvedQueueOptions,
  waiting: Map<string, WaitingJob>,
  lose: (error: unknown) => void,
): Promise<Parts> {
  // The events are read from the last one there now: whenever its first read happens, the events of
  // every job added from here on are seen (reading from the stream's end at that read can miss them).
  const lastEventId = await probe(o);
  const queue = new Queue(o.queue, { connection: o.connection, prefix: o.prefix });
  const events = new JobEvents(o, lastEventId, waiting, lose);
  queue.on('error', lose);
  try {
    await connected(
      o.queue,
      Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
      o.connectTimeoutMs,
    );
  } catch (error) {
    // Parts that never came up are let go: nothing keeps reconnecting for them.
    void events.close();
    void queue.disconnect().catch(() => {});
    throw error;
  }
  return { queue, events };
}
