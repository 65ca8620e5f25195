import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type {
  ConversationExecutor,
  ConversationJob,
  ConversationOutcome,
  ConversationProgress,
} from '../actors/conversation-job.js';
import { toFailure } from '../actors/failure.js';
import { QueueUnavailableError } from '../errors.js';
import {
  cancelChannel,
  connected,
  jobIdOf,
  probe,
  type QueueOptions,
  type ResolvedQueueOptions,
  resolveQueueOptions,
} from './connection.js';

/** What a worker returns for a job: the outcome, with every model and tool call of the run that completed it. */
export interface JobResult {
  outcome: ConversationOutcome;
  progress: ConversationProgress[];
}

/** A {@link ConversationExecutor} on a BullMQ queue; `close` releases its connections. */
export interface QueueExecutor extends ConversationExecutor {
  close(): Promise<void>;
}

interface Waiting {
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
 * Runs a crew's conversations on a fleet of workers (`createWorker`) through a BullMQ queue on Redis:
 * each attempt's conversation becomes a job; the crew's supervisor stays in this process and hears of
 * each job's end through BullMQ's queue events, never by polling. A job's id is its execution, node and
 * attempt, so a job added twice runs once, and a job that ran twice (its worker died and another took
 * it over) is recorded once: its model and tool calls come with its result, from the run that
 * completed it. Streamed text comes as it is produced. Aborting a run removes its waiting jobs and asks
 * the workers to cancel its active ones. Redis not answering fails the attempts with
 * `queue_unavailable` (at the start within `connectTimeoutMs`; mid-run at once, every later one too).
 *
 * @example
 * const executor = createQueueExecutor({ connection: 'redis://127.0.0.1:6379', queue: 'research' });
 * const out = await new Crew({ tasks, executor }).kickoff();
 * await executor.close();
 */
export function createQueueExecutor(options: QueueOptions = {}): QueueExecutor {
  const o = resolveQueueOptions('createQueueExecutor', options);
  const waiting = new Map<string, Waiting>();
  /** Why the connection to Redis was lost, once it was after it had been up. */
  let lost: unknown;
  let closing = false;
  let parts: Promise<Parts> | undefined;
  /** Opened on the first abort: how the workers are asked to cancel a job. */
  let publisher: Redis | undefined;

  const lose = (error: unknown) => {
    if (closing) return;
    lost ??= error;
    const failure = toFailure(new QueueUnavailableError(o.queue, lost));
    for (const pending of waiting.values()) pending.resolve({ ok: false, failure });
    waiting.clear();
  };
  const open = (): Promise<Parts> => {
    parts ??= makeParts(o, waiting, lose).catch((error: unknown) => {
      // A server that could not be reached at first may be there for the next attempt.
      parts = undefined;
      throw error;
    });
    return parts;
  };

  return {
    async converse(job: ConversationJob, signal: AbortSignal, report) {
      let queue: Queue;
      try {
        ({ queue } = await open());
        if (lost !== undefined) throw new QueueUnavailableError(o.queue, lost);
      } catch (error) {
        return { ok: false, failure: toFailure(error) };
      }
      signal.throwIfAborted();
      const jobId = jobIdOf(job.executionId, job.nodeId, job.attempt);
      let forget = () => {};
      const outcome = new Promise<ConversationOutcome>((resolve, reject) => {
        waiting.set(jobId, { report, resolve });
        forget = onAbort(signal, jobId, () => {
          waiting.delete(jobId);
          void cancel(queue, jobId);
          reject(signal.reason);
        });
      });
      outcome.then(forget, forget);
      try {
        await queue.add('conversation', job, {
          jobId,
          attempts: 1, // statecrew's own retry policy decides on retries, as a new attempt
          removeOnComplete: true,
          removeOnFail: 1000,
        });
      } catch (error) {
        waiting.delete(jobId);
        return { ok: false, failure: toFailure(new QueueUnavailableError(o.queue, error)) };
      }
      return outcome;
    },
    async close() {
      closing = true;
      publisher?.disconnect();
      const made = await parts?.catch(() => undefined);
      if (made === undefined) return;
      const closed = Promise.allSettled([made.events.close(), made.queue.close()]);
      // Parts whose server is gone would wait for it: past the grace, they are dropped.
      const late = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      if ((await Promise.race([closed.then(() => true), late.then(() => false)])) === false) {
        // Not awaited: a disconnect waits for a server that is not there too.
        void Promise.allSettled([made.events.disconnect(), made.queue.disconnect()]);
      }
    },
  };

  async function cancel(queue: Queue, jobId: string): Promise<void> {
    // The run is over either way: a job left running only wastes its worker's time.
    if (publisher === undefined) {
      publisher = new Redis(o.connection);
      publisher.on('error', () => {});
    }
    // An active job is cancelled by its worker; a waiting one is removed (an active one cannot be).
    await publisher.publish(cancelChannel(o), jobId).catch(() => {});
    await queue.remove(jobId).catch(() => {});
  }
}

/** What to do for each job in flight when a signal aborts, by signal. */
const abortsOf = new WeakMap<AbortSignal, Map<string, () => void>>();

/**
 * Runs `then` when `signal` aborts; returns how to take it off. The signal is an agent's, shared by
 * every attempt in flight: it gets one listener, not one per job.
 */
function onAbort(signal: AbortSignal, jobId: string, then: () => void): () => void {
  let jobs = abortsOf.get(signal);
  if (jobs === undefined) {
    const mine = new Map<string, () => void>();
    jobs = mine;
    abortsOf.set(signal, mine);
    signal.addEventListener(
      'abort',
      () => {
        for (const run of mine.values()) run();
        mine.clear();
      },
      { once: true },
    );
  }
  jobs.set(jobId, then);
  const held = jobs;
  return () => {
    held.delete(jobId);
  };
}

/** The queue to add jobs to and the events that tell of their ends, once Redis answered. */
async function makeParts(
  o: ResolvedQueueOptions,
  waiting: Map<string, Waiting>,
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
  events.on('progress', ({ jobId, data }) => {
    const progress = data as ConversationProgress;
    // Streamed text is shown as it comes; calls are recorded from the result.
    if (typeof progress === 'object' && progress?.type === 'model.delta')
      waiting.get(jobId)?.report(progress);
  });
  events.on('completed', ({ jobId, returnvalue }) => {
    const pending = waiting.get(jobId);
    if (pending === undefined) return;
    waiting.delete(jobId);
    const result = returnvalue as unknown as JobResult;
    for (const progress of result.progress) if (progress.type !== 'model.delta') pending.report(progress);
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
  await connected(
    o.queue,
    Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
    o.connectTimeoutMs,
  );
  return { queue, events };
}
