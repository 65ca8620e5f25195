import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type {
  ConversationExecutor,
  ConversationJob,
  ConversationOutcome,
  ConversationProgress,
} from '../actors/conversation-job.js';
import { cancelChannel, connected, jobIdOf, type QueueOptions, resolveQueueOptions } from './connection.js';

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

/**
 * Runs a crew's conversations on a fleet of workers (`createWorker`) through a BullMQ queue on Redis:
 * each attempt's conversation becomes a job; the crew's supervisor stays in this process and hears of
 * each job's end through BullMQ's queue events, never by polling. A job's id is its execution, node and
 * attempt, so a job added twice runs once, and a job that ran twice (its worker died and another took
 * it over) is recorded once: its model and tool calls come with its result, from the run that
 * completed it. Streamed text comes as it is produced. Aborting a run removes its waiting jobs and asks
 * the workers to cancel its active ones.
 *
 * @example
 * const executor = createQueueExecutor({ connection: 'redis://127.0.0.1:6379', queue: 'research' });
 * const out = await new Crew({ tasks, executor }).kickoff();
 * await executor.close();
 */
export function createQueueExecutor(options: QueueOptions = {}): QueueExecutor {
  const o = resolveQueueOptions('createQueueExecutor', options);
  const queue = new Queue(o.queue, { connection: o.connection, prefix: o.prefix });
  const events = new QueueEvents(o.queue, { connection: o.connection, prefix: o.prefix });
  const waiting = new Map<string, Waiting>();
  // Connection errors reach the calls that need the server; an 'error' listener keeps them from crashing.
  queue.on('error', () => {});
  events.on('error', () => {});
  events.on('progress', ({ jobId, data }) => {
    const progress = data as ConversationProgress;
    // Streamed text is shown as it comes; calls are recorded from the result (see above).
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
  let ready: Promise<void> | undefined;
  /** Opened on the first abort: how the workers are asked to cancel a job. */
  let publisher: Redis | undefined;
  const open = () => {
    ready ??= connected(
      o.queue,
      Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
      o.connectTimeoutMs,
    );
    return ready;
  };

  return {
    async converse(job: ConversationJob, signal: AbortSignal, report) {
      await open();
      signal.throwIfAborted();
      const jobId = jobIdOf(job.executionId, job.nodeId, job.attempt);
      const outcome = new Promise<ConversationOutcome>((resolve, reject) => {
        waiting.set(jobId, { report, resolve });
        signal.addEventListener(
          'abort',
          () => {
            waiting.delete(jobId);
            void cancel(jobId);
            reject(signal.reason);
          },
          { once: true },
        );
      });
      await queue.add('conversation', job, {
        jobId,
        attempts: 1, // statecrew's own retry policy decides on retries, as a new attempt
        removeOnComplete: true,
        removeOnFail: 1000,
      });
      return outcome;
    },
    async close() {
      await Promise.allSettled([events.close(), queue.close(), publisher?.quit()]);
    },
  };

  async function cancel(jobId: string): Promise<void> {
    try {
      await queue.remove(jobId);
      publisher ??= new Redis(o.connection);
      publisher.on('error', () => {});
      await publisher.publish(cancelChannel(o), jobId);
    } catch {
      // The run is over either way; a job left running only wastes its worker's time.
    }
  }
}
