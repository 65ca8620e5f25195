import type { Queue } from 'bullmq';
import type {
  ConversationExecutor,
  ConversationJob,
  ConversationOutcome,
  ConversationProgress,
} from '../actors/conversation-job.js';
import { toFailure } from '../actors/failure.js';
import { QueueUnavailableError } from '../errors.js';
import { jobIdOf, type QueueOptions, resolveQueueOptions } from './connection.js';
import { ExecutorConnection } from './executor-connection.js';

/** A {@link ConversationExecutor} on a BullMQ queue; `close` releases its connections. */
export interface QueueExecutor extends ConversationExecutor {
  close(): Promise<void>;
}

/**
 * Runs a crew's conversations on a fleet of workers (`createWorker`) through a BullMQ queue on Redis:
 * each attempt's conversation becomes a job (the jobs of one turn of the event loop are added
 * together, in one round trip); the crew's supervisor stays in this process and hears of each job's
 * end through BullMQ's queue events, never by polling. A job's id is its execution, node and attempt,
 * so a job added twice runs once, and a job that ran twice (its worker died and another took
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
  const connection = new ExecutorConnection(resolveQueueOptions('createQueueExecutor', options));
  return {
    converse: (job, signal, report) => converse(connection, job, signal, report),
    close: () => connection.close(),
  };
}

/** One attempt's conversation as a job: added to the queue, its outcome heard from the queue's events. */
function converse(
  connection: ExecutorConnection,
  job: ConversationJob,
  signal: AbortSignal,
  report: (progress: ConversationProgress) => void,
): Promise<ConversationOutcome> {
  // Once the queue is up, a job is added in the same turn (no wait for the connection's promise).
  const open = connection.openQueue;
  if (open !== undefined) return submit(connection, open, job, signal, report);
  return connection.queue().then(
    (queue) => submit(connection, queue, job, signal, report),
    (error: unknown): ConversationOutcome => ({ ok: false, failure: toFailure(error) }),
  );
}

/**
 * Adds the job to `queue` (with the others of this turn) and resolves with its outcome once the
 * queue's events tell of its end; a refused add ends it with `queue_unavailable`. Rejects with the
 * signal's reason when `signal` aborts first, which cancels the job.
 */
function submit(
  connection: ExecutorConnection,
  queue: Queue,
  job: ConversationJob,
  signal: AbortSignal,
  report: (progress: ConversationProgress) => void,
): Promise<ConversationOutcome> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const jobId = jobIdOf(job.executionId, job.nodeId, job.attempt);
  const outcome = jobEnd(connection, queue, jobId, signal, report);
  connection
    .add(queue, 'conversation', job, {
      jobId,
      attempts: 1, // statecrew's own retry policy decides on retries, as a new attempt
      removeOnComplete: true,
      removeOnFail: 1000,
    })
    .catch((error: unknown) => {
      const pending = connection.waiting.get(jobId);
      connection.waiting.delete(jobId);
      const failure = toFailure(new QueueUnavailableError(connection.options.queue, error));
      pending?.resolve({ ok: false, failure });
    });
  return outcome;
}

/**
 * The outcome of job `jobId` once the queue's events tell of its end; rejects with the signal's reason
 * when `signal` aborts first, which cancels the job. The abort is listened for until the job ended.
 */
function jobEnd(
  connection: ExecutorConnection,
  queue: Queue,
  jobId: string,
  signal: AbortSignal,
  report: (progress: ConversationProgress) => void,
): Promise<ConversationOutcome> {
  return new Promise<ConversationOutcome>((resolve, reject) => {
    const forget = onAbort(signal, jobId, () => {
      connection.waiting.delete(jobId);
      void connection.cancel(queue, jobId);
      reject(signal.reason);
    });
    const ended = (outcome: ConversationOutcome) => {
      forget();
      resolve(outcome);
    };
    connection.waiting.set(jobId, { report, resolve: ended });
  });
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
