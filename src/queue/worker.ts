import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import {
  type ConversationJob,
  type ConversationProgress,
  resolveRegistry,
} from '../actors/conversation-job.js';
import { holdConversation } from '../actors/hold-conversation.js';
import { ToolSessions } from '../actors/tool-sessions.js';
import { parseOptions } from '../options/parse.js';
import { GracefulStop } from '../runtime/durable/graceful-stop.js';
import { createRunner, type Runner } from '../runtime/durable/runner.js';
import type { Store } from '../stores/store.js';
import { bullWorker } from './bull-worker.js';
import { listenForCancels } from './cancel.js';
import { probe, resolveQueueOptions, runQueueName } from './connection.js';
import type { QueueableCrew, QueueableFlow } from './definitions.js';
import { isLive, type JobResult } from './job-events.js';
import { runProcessor } from './run-processor.js';
import { type WorkerOptions, type WorkerSettings, workerOptionsSchema } from './worker-options.js';

export type { WorkerOptions } from './worker-options.js';

/** A running worker; `close` stops it gracefully and releases its connections. */
export interface QueueWorker {
  readonly name: string;
  /** Resolves once it is connected and takes jobs. */
  ready: Promise<void>;
  /**
   * Stops taking jobs; its conversations in flight finish; its whole runs (and the runs its runners
   * resumed) start no further node, get `shutdownGraceMs` to reach their next commit, then give their
   * leases up, kept `running` (`run.suspended`), each run's job back in the queue for a worker to
   * resume it. Called again while they drain, it ends the grace at once.
   */
  close(): Promise<void>;
}

/**
 * Holds the conversations a queue executor sends, with the agents and tools of its registry, found by
 * name (an agent's name is its role; functions are never sent over the queue). A job whose agent or
 * tool it does not hold fails with `unknown_agent` / `unknown_tool`, not retried. MCP servers a job
 * names are called through the worker's own connections (its `mcps`, or an agent's own servers): one
 * per server, opened when a job first needs it, closed by `close`. Several workers, in as many
 * processes and machines as you like, share one queue; a job whose worker died is taken over by
 * another (BullMQ's stalled-job recovery) within about `lockDurationMs` + 2 × `stalledIntervalMs`.
 * Options out of range are `invalid_option`, thrown at once.
 *
 * @example
 * const worker = createWorker({ connection: 'redis://127.0.0.1:6379', queue: 'research', agents: [researcher, writer], tools: [search] });
 */
export function createWorker(given: WorkerOptions): QueueWorker {
  const options = parseOptions(workerOptionsSchema, 'createWorker', given);
  const { connection, queue, prefix, connectTimeoutMs, concurrency, lockDurationMs, stalledIntervalMs } =
    options;
  const o = resolveQueueOptions('createWorker', { connection, queue, prefix, connectTimeoutMs });
  const tuning = { concurrency, lockDurationMs, stalledIntervalMs };
  // The MCP servers' connections: each opened when a job first needs it, closed when the worker closes.
  const sessions = new ToolSessions();
  const registry = { ...resolveRegistry({ ...options, agents: options.agents ?? [] }), sessions };
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const processor = conversationProcessor(registry, name);
  /**
   * Aborted on close with a `GracefulStop`: the whole runs in flight are suspended, and a job waiting
   * for a run another owner holds stops waiting.
   */
  const closing = new AbortController();
  /** The workers (conversations, and whole runs when it holds definitions) and the cancel subscriber. */
  const start = async () => {
    await probe(o);
    const conversations = await bullWorker(o, o.queue, processor, tuning);
    const runs =
      options.definitions === undefined
        ? undefined
        : await bullWorker(
            o,
            runQueueName(o),
            runProcessor(options.definitions, options.store, name, closing.signal),
            tuning,
          );
    // A run aborted elsewhere asks for its jobs to be cancelled: its conversations, or the run itself.
    const subscriber = await listenForCancels(o, conversations.worker, runs?.worker);
    return { conversations, runs, subscriber, runners: startRunners(options) };
  };
  const started = start();
  const ready = started.then(() => {});
  ready.catch(() => {});
  return {
    name,
    ready,
    async close() {
      const reason: unknown = closing.signal.reason;
      if (reason instanceof GracefulStop) reason.now();
      else closing.abort(new GracefulStop(options.shutdownGraceMs, 'the worker closed'));
      const made = await started.catch(() => undefined);
      if (made !== undefined) {
        made.subscriber.disconnect();
        await Promise.all([
          made.conversations.close(),
          made.runs?.close(),
          ...made.runners.map((runner) => runner.close()),
        ]);
      }
      (closing.signal.reason as GracefulStop).now();
      // After the jobs in flight finished: their servers' processes stop.
      await sessions.close();
    },
  };
}

/** The processor of conversation jobs: holds each conversation, sending deltas and tools' progress as job progress. */
function conversationProcessor(registry: ReturnType<typeof resolveRegistry>, name: string) {
  return async (job: Job<ConversationJob>, _token?: string, signal?: AbortSignal): Promise<JobResult> => {
    const progress: ConversationProgress[] = [];
    let sent = Promise.resolve();
    const report = (p: ConversationProgress) => {
      progress.push(p);
      if (isLive(p)) sent = sent.then(() => job.updateProgress(p)).catch(() => {});
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
}

/** One runner per store the worker's definitions keep their runs in (none unless it holds definitions). */
function startRunners(options: WorkerSettings): Runner[] {
  const { definitions, recover = true } = options;
  if (definitions === undefined || recover === false) return [];
  const pollMs = typeof recover === 'object' ? recover.pollMs : undefined;
  const byStore = new Map<Store, { flows: QueueableFlow[]; crews: QueueableCrew[] }>();
  for (const definition of Object.values(definitions)) {
    const store = options.store ?? definition.store;
    if (store === undefined) continue;
    const group = byStore.get(store) ?? { flows: [], crews: [] };
    if ('getRun' in definition) group.flows.push(definition);
    else group.crews.push(definition);
    byStore.set(store, group);
  }
  const { shutdownGraceMs } = options;
  return [...byStore].map(([store, group]) =>
    createRunner({ store, ...group, shutdownGraceMs, ...(pollMs === undefined ? {} : { pollMs }) }),
  );
}
