import { hostname } from 'node:os';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  type AgentRegistry,
  type ConversationJob,
  type ConversationProgress,
  holdConversation,
  resolveRegistry,
} from '../actors/conversation-job.js';
import { cancelChannel, connected, probe, type QueueOptions, resolveQueueOptions } from './connection.js';

/** How long closing a worker whose server is gone may take before it is dropped. */
const CLOSE_GRACE_MS = 5000;

import type { JobResult } from './queue-executor.js';

/** Options of {@link createWorker}. */
export interface WorkerOptions extends QueueOptions, AgentRegistry {
  /** Jobs held at once. @default 8 */
  concurrency?: number | undefined;
  /** How this worker is named in the nodes it ran (`nodes[].worker`). @default `<host>:<pid>` */
  name?: string | undefined;
  /**
   * How long a job's lock lasts without renewal: a worker that died loses its jobs to the others after
   * about this long. @default 30000
   */
  lockDurationMs?: number | undefined;
  /** How often stalled jobs (their worker died) are looked for. @default 30000 */
  stalledIntervalMs?: number | undefined;
}

/** A running worker; `close` lets its jobs in flight finish and releases its connections. */
export interface QueueWorker {
  readonly name: string;
  /** Resolves once it is connected and takes jobs. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Holds the conversations a queue executor sends, with the agents and tools of its registry, found by
 * name (an agent's name is its role; functions are never sent over the queue). A job whose agent or
 * tool it does not hold fails with `unknown_agent` / `unknown_tool`, not retried. Several workers, in
 * as many processes and machines as you like, share one queue; a job whose worker died is taken over
 * by another (BullMQ's stalled-job recovery).
 *
 * @example
 * const worker = createWorker({ connection: 'redis://127.0.0.1:6379', queue: 'research', agents: [researcher, writer], tools: [search] });
 */
export function createWorker(options: WorkerOptions): QueueWorker {
  const o = resolveQueueOptions('createWorker', options);
  const registry = resolveRegistry(options);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const processor = async (
    job: Job<ConversationJob>,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<JobResult> => {
    const progress: ConversationProgress[] = [];
    let sent = Promise.resolve();
    const report = (p: ConversationProgress) => {
      progress.push(p);
      if (p.type === 'model.delta') sent = sent.then(() => job.updateProgress(p)).catch(() => {});
    };
    const outcome = await holdConversation(
      job.data,
      registry,
      signal ?? new AbortController().signal,
      report,
    );
    await sent;
    return { outcome: { ...outcome, worker: name }, progress };
  };
  /** The worker and its cancel subscriber, made once Redis answered. */
  const start = async () => {
    await probe(o);
    const worker = new Worker<ConversationJob, JobResult>(o.queue, processor, {
      connection: o.connection,
      prefix: o.prefix,
      concurrency: options.concurrency ?? 8,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
    });
    // An error is BullMQ telling of trouble with Redis (it reconnects by itself): see `close`.
    worker.on('error', () => {
      troubled = true;
    });
    worker.on('ioredis:close', () => {
      troubled = true;
    });
    // A run that was aborted asks for its active jobs to be cancelled.
    const subscriber = new Redis(o.connection);
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, jobId: string) => {
      worker.cancelJob(jobId, 'The run was aborted');
    });
    await connected(
      o.queue,
      Promise.all([worker.waitUntilReady(), subscriber.subscribe(cancelChannel(o))]),
      o.connectTimeoutMs,
    );
    return { worker, subscriber };
  };
  let troubled = false;
  const started = start();
  const ready = started.then(() => {});
  ready.catch(() => {});
  return {
    name,
    ready,
    async close() {
      const made = await started.catch(() => undefined);
      if (made === undefined) return;
      made.subscriber.disconnect();
      // Lets the jobs in flight finish; a worker that had trouble with its server (which may be gone)
      // is dropped after a grace.
      const closed = made.worker.close().then(() => true);
      if (!troubled) return void (await closed);
      const late = new Promise<boolean>((resolve) =>
        setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref(),
      );
      // Not awaited: a forced close waits for a server that is not there too.
      if (!(await Promise.race([closed, late]))) void made.worker.close(true).catch(() => {});
    },
  };
}
