import { type Processor, Worker } from 'bullmq';
import { connected, type ResolvedQueueOptions } from './connection.js';

/** How long closing a worker whose server is gone may take before it is dropped. */
const CLOSE_GRACE_MS = 5000;

/** A BullMQ worker and how it closes: gracefully, unless its server gave trouble. */
export interface BullWorker {
  worker: Worker;
  close(): Promise<void>;
}

/** Tuning of the BullMQ workers statecrew makes. */
export interface BullWorkerTuning {
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/**
 * A BullMQ worker on queue `name`, connected (or `queue_unavailable`). Its `close` lets the jobs in
 * flight finish; one whose server gave trouble (and may be gone) is dropped after a grace.
 */
export async function bullWorker(
  o: ResolvedQueueOptions,
  name: string,
  processor: Processor,
  tuning: BullWorkerTuning,
): Promise<BullWorker> {
  const worker = new Worker(name, processor, {
    connection: o.connection,
    prefix: o.prefix,
    concurrency: tuning.concurrency,
    lockDuration: tuning.lockDurationMs,
    stalledInterval: tuning.stalledIntervalMs,
  });
  let troubled = false;
  // An error is BullMQ telling of trouble with Redis (it reconnects by itself).
  worker.on('error', () => {
    troubled = true;
  });
  worker.on('ioredis:close', () => {
    troubled = true;
  });
  await connected(name, worker.waitUntilReady(), o.connectTimeoutMs);
  return {
    worker,
    async close() {
      const closed = worker.close().then(() => true);
      if (!troubled) return void (await closed);
      const late = new Promise<boolean>((resolve) =>
        setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref(),
      );
      // Not awaited: a forced close waits for a server that is not there too.
      if (!(await Promise.race([closed, late]))) void worker.close(true).catch(() => {});
    },
  };
}
