/**
 * `statecrew/queue`: a crew's conversations on a fleet of workers, through BullMQ on Redis.
 *
 * @example
 * import { createQueueExecutor, createWorker } from 'statecrew/queue';
 */
export type { QueueConnection, QueueOptions } from './connection.js';
export type {
  QueueableCrew,
  QueueableFlow,
  QueuedRunOptions,
  RunDefinitions,
  RunEnd,
  RunStoreOption,
} from './definitions.js';
export type { JobResult } from './job-events.js';
export { createQueueExecutor, type QueueExecutor } from './queue-executor.js';
export {
  createRunQueue,
  type RunJob,
  type RunJobResult,
  type RunQueue,
  type SubmitRunOptions,
  type SubmittedRun,
} from './run-queue.js';
export { createWorker, type QueueWorker, type WorkerOptions } from './worker.js';
