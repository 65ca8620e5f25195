import { randomUUID } from 'node:crypto';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { toFailure } from '../actors/failure.js';
import { StatecrewError, UnknownDefinitionError } from '../errors.js';
import type { NodeFailure } from '../machines/lifecycle.js';
import { parseOptions } from '../options/parse.js';
import { type JsonValue, type Store, toJson } from '../stores/store.js';
import {
  connected,
  probe,
  type QueueOptions,
  type ResolvedQueueOptions,
  resolveQueueOptions,
} from './connection.js';
import { isFlow, type RunDefinitions } from './definitions.js';
import { resumeWhenFree } from './locked-run.js';
import { type SubmitRunOptions, submitRunOptionsSchema } from './submit-run-options.js';

export type { SubmitRunOptions } from './submit-run-options.js';

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
  /** The run's status (`paused` for a flow waiting for a human); `failed` when it could not run. */
  status: string;
  output: JsonValue;
  worker: string;
  /** Why it could not run (an unknown definition, a rejected kickoff). */
  failure?: NodeFailure;
}

/** The queue of whole runs beside a conversation queue. */
export const runQueueName = (o: ResolvedQueueOptions) => `${o.queue}-runs`;

/**
 * The processor of whole runs: the named definition's run under the job's id, kept in `store` (else
 * the definition's own). A run its store already holds (its worker died; another took the job over)
 * is resumed rather than started again; one that another owner still runs is waited for (until
 * `stop` aborts, when the worker closes), and the job ends with the run's end.
 */
export function runProcessor(
  definitions: RunDefinitions,
  store: Store | undefined,
  worker: string,
  stop: AbortSignal = new AbortController().signal,
) {
  return async (job: Job<RunJob>): Promise<RunJobResult> => {
    const { name, inputs, id, events } = job.data;
    const definition = definitions[name];
    const base = { id, name, worker };
    if (definition === undefined) {
      const failure = toFailure(new UnknownDefinitionError(name, Object.keys(definitions)));
      return { ...base, kind: undefined, status: 'failed', output: null, failure };
    }
    const kept = store ?? definition.store;
    // A job submitted before runs could keep their events has no `events`: its run keeps none.
    const stored = {
      ...(kept === undefined ? {} : { store: kept }),
      ...(events === undefined ? {} : { events }),
    };
    // A run its store already holds (its worker died; another took the job over) is resumed.
    const held = (error: unknown) =>
      error instanceof StatecrewError && (error.code === 'flow_exists' || error.code === 'run_exists');
    try {
      if (isFlow(definition)) {
        const resume = () => definition.resume(id, undefined, stored);
        const out = await definition
          .kickoff({ inputs: { ...inputs, id }, ...stored })
          .catch((error: unknown) =>
            held(error) ? resumeWhenFree(resume, kept, id, stop) : Promise.reject(error),
          );
        return { ...base, kind: 'flow', status: out.status, output: toJson(out.output) };
      }
      const resume = () => definition.resume(id, stored);
      const out = await definition
        .kickoff({ executionId: id, inputs, ...stored })
        .catch((error: unknown) =>
          held(error) ? resumeWhenFree(resume, kept, id, stop) : Promise.reject(error),
        );
      return { ...base, kind: 'crew', status: out.status, output: toJson(out.output) };
    } catch (error) {
      return {
        ...base,
        kind: isFlow(definition) ? 'flow' : 'crew',
        status: 'failed',
        output: null,
        failure: toFailure(error),
      };
    }
  };
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
  close(): Promise<void>;
}

/**
 * Submits whole crew and flow runs to a fleet of workers (`createWorker({ definitions })`) through
 * BullMQ; each run's end is heard through queue events. A run is a job keyed by its id: submitted
 * twice, it runs once.
 *
 * @example
 * const runs = createRunQueue({ connection: 'redis://127.0.0.1:6379', queue: 'research' });
 * const { id, result } = await runs.submitRun('research', { topic: 'AI' });
 * console.log(id, (await result).status);
 */
export function createRunQueue(options: QueueOptions = {}): RunQueue {
  const o = resolveQueueOptions('createRunQueue', options);
  const waiting = new Map<string, (result: RunJobResult) => void>();
  let parts: Promise<{ queue: Queue; events: QueueEvents }> | undefined;
  const open = () => {
    parts ??= (async () => {
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
        waiting.get(jobId)?.({
          id: jobId,
          name: '',
          kind: undefined,
          status: 'failed',
          output: null,
          worker: '',
          failure: { message: `The queue failed the run: ${failedReason}`, retryable: true },
        });
        waiting.delete(jobId);
      });
      await connected(
        o.queue,
        Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
        o.connectTimeoutMs,
      );
      return { queue, events };
    })().catch((error: unknown) => {
      parts = undefined;
      throw error;
    });
    return parts;
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
    async close() {
      const made = await parts?.catch(() => undefined);
      if (made !== undefined) await Promise.allSettled([made.events.close(), made.queue.close()]);
    },
  };
}
