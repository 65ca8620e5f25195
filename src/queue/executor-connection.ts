import { type JobsOptions, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { ConversationOutcome, ConversationProgress } from '../actors/conversation-job.js';
import { toFailure } from '../actors/failure.js';
import { QueueUnavailableError } from '../errors.js';
import { AddBatch } from './add-batch.js';
import { cancelChannel, connected, probe, type ResolvedQueueOptions } from './connection.js';

/** What a worker returns for a job: the outcome, with every model and tool call of the run that completed it. */
export interface JobResult {
  outcome: ConversationOutcome;
  progress: ConversationProgress[];
}

/** A job on the queue whose end an attempt waits for: where its progress and its outcome go. */
export interface WaitingJob {
  report(progress: ConversationProgress): void;
  resolve(outcome: ConversationOutcome): void;
}

/** The BullMQ parts of an executor, made once Redis answered. */
interface Parts {
  queue: Queue;
  events: QueueEvents;
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
  /** Opened on the first abort: how the workers are asked to cancel a job. */
  #publisher: Redis | undefined;
  /** The adds of one turn of the event loop, sent together. */
  #adds: AddBatch | undefined;

  constructor(readonly options: ResolvedQueueOptions) {}

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
      void Promise.allSettled([made.events.disconnect(), made.queue.disconnect()]);
    }
  }

  #open(): Promise<Parts> {
    this.#parts ??= makeParts(this.options, this.waiting, (error) => this.#lose(error)).catch(
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
  // every job added from here on are seen (BullMQ's default, the stream's end at that read, can miss them).
  const lastEventId = await probe(o);
  const queue = new Queue(o.queue, { connection: o.connection, prefix: o.prefix });
  const events = new QueueEvents(o.queue, { connection: o.connection, prefix: o.prefix, lastEventId });
  queue.on('error', lose);
  events.on('error', lose);
  events.on('ioredis:close', () => lose(new Error('the connection to Redis closed')));
  followJobs(events, waiting);
  await connected(
    o.queue,
    Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
    o.connectTimeoutMs,
  );
  return { queue, events };
}

/** Whether a job's progress goes over the queue as it happens (else with its result). */
export function isLive(progress: ConversationProgress): boolean {
  return progress.type === 'model.delta' || progress.type === 'tool.progress';
}

/**
 * Sends each waiting job's streamed text and tools' progress as they come, and its calls and outcome
 * once it ended.
 */
function followJobs(events: QueueEvents, waiting: Map<string, WaitingJob>): void {
  events.on('progress', ({ jobId, data }) => {
    const progress = data as ConversationProgress;
    // Streamed text and progress are shown as they come; calls are recorded from the result.
    if (typeof progress === 'object' && progress !== null && isLive(progress))
      waiting.get(jobId)?.report(progress);
  });
  events.on('completed', ({ jobId, returnvalue }) => {
    const pending = waiting.get(jobId);
    if (pending === undefined) return;
    waiting.delete(jobId);
    const result = returnvalue as unknown as JobResult;
    for (const progress of result.progress) if (!isLive(progress)) pending.report(progress);
    pending.resolve(result.outcome);
  });
  events.on('failed', ({ jobId, failedReason }) => {
    const pending = waiting.get(jobId);
    if (pending === undefined) return;
    waiting.delete(jobId);
    // A worker's processor never throws: BullMQ failed the job itself (stalled too often, a lost lock).
    pending.resolve({
      ok: false,
      failure: { message: `The queue failed the job: ${failedReason}`, retryable: true },
    });
  });
}
