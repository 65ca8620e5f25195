import { EMPTY, filter, firstValueFrom, map, merge, from as observableFrom } from 'rxjs';
import { z } from 'zod';
import { InvalidRequestError, isStatecrewError, RunExistsError } from '../errors.js';
import type { QueueOptions } from '../queue/connection.js';
import type { RunQueue } from '../queue/run-queue.js';
import type { Crew } from '../runtime/crew/crew.js';
import { liveJournal, whenJournal } from '../runtime/durable/live-journals.js';
import { crewInputSchema } from '../runtime/input-schema.js';
import { checkInputs } from '../runtime/run/inputs.js';
import type { Store } from '../stores/store.js';
import type { Admission } from './admission.js';
import type { ServedDefinition, StartedRun } from './definitions.js';
import { parseRequest } from './http-errors.js';
import type { LiveRuns } from './live-runs.js';

/** A run the server started or submitted: its id, definition and kind. */
export interface RunRef {
  id: string;
  definition: string;
  kind: 'crew' | 'flow';
}

/** Passes a run's rejection on, unless it is a graceful stop's suspension (the run is kept). */
function unlessSuspended(error: unknown): undefined {
  if (isStatecrewError(error, 'suspended')) return undefined;
  throw error;
}

/**
 * Resolves once `run` holds its id in the store (its `run.started`) or ended; rejects with what
 * stopped it before that (the id taken, the store out of reach, inputs refused).
 */
export function whenStarted(run: StartedRun): Promise<void> {
  const started = run.events$.pipe(
    filter((event) => event.type === 'run.started' && event.runId === run.id),
    map(() => undefined),
  );
  // A run suspended by the server's graceful stop holds its id, kept for a runner: it was taken.
  const ended = observableFrom(run.result.then(() => undefined, unlessSuspended));
  return firstValueFrom(merge(started, ended), { defaultValue: undefined });
}

/**
 * Resolves once `run` started (see {@link whenStarted}), and from then tracks it as live until it
 * settles; rejects, tracking nothing, with what stopped it before it held its id.
 */
export async function trackStarted(
  live: LiveRuns,
  served: ServedDefinition,
  run: StartedRun,
  controller: AbortController,
): Promise<RunRef> {
  // Tracked only once it holds its id: a run refused the id (run_exists) must never stand, even for a
  // moment, in the place of the run that holds it, whose abort controller the entry carries.
  await whenStarted(run);
  live.track(run.id, { kind: served.kind, definition: served.name, ...run }, controller);
  return { id: run.id, definition: served.name, kind: served.kind };
}

/** The body schema of each served crew's inputs, made once: a new zod schema compiles anew. */
const crewBodySchemas = new WeakMap<Crew, z.ZodObject>();

function crewBodySchema(crew: Crew): z.ZodObject {
  let schema = crewBodySchemas.get(crew);
  if (schema === undefined) {
    schema = z.object({ inputs: crewInputSchema(crew) });
    crewBodySchemas.set(crew, schema);
  }
  return schema;
}

/** Calls `release` once `result` settled, whichever way. */
function releaseWhen(result: Promise<unknown>, release: () => void): void {
  result.then(release, release);
}

/**
 * Where runs start: here (over the store), each once `admission` has a place for it, or on the run
 * queue of a fleet of workers.
 */
export class RunStarter {
  readonly #store: Store;
  readonly #live: LiveRuns;
  readonly #admission: Admission;
  readonly #queueOptions: QueueOptions | undefined;
  #queue: Promise<RunQueue> | undefined;

  constructor(store: Store, live: LiveRuns, admission: Admission, queue: QueueOptions | undefined) {
    this.#store = store;
    this.#live = live;
    this.#admission = admission;
    this.#queueOptions = queue;
  }

  /**
   * Starts (or submits) a run of `served` with `inputs`, under `id` when given, on `thread` when
   * given. Inputs over the limits of size and depth are refused here too (`invalid_inputs`), before
   * a run is submitted; so is a thread for the run queue, whose workers run no thread. A run started
   * here waits, checked, for a place among the server's active runs (`maxActiveRuns`), then starts.
   */
  async start(
    served: ServedDefinition,
    inputs: Record<string, unknown>,
    id: string | undefined,
    thread?: string,
  ): Promise<RunRef> {
    checkInputs('POST /runs', inputs);
    if (served.kind === 'crew') parseRequest('POST /runs', 'body', crewBodySchema(served.crew), { inputs });
    if (this.#queueOptions !== undefined) {
      if (thread !== undefined) {
        throw new InvalidRequestError('POST /runs', [
          {
            path: 'body.thread',
            message: 'runs on the run queue take no thread: start it on a server without --queue',
          },
        ]);
      }
      return this.#submit(served, inputs, id);
    }
    const release = await this.#admission.enter();
    try {
      if (thread !== undefined && served.kind === 'flow')
        return await this.#startOnThread(served, inputs, id, thread, release);
      return await this.#startHere(served, inputs, id, thread, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Starts a run here (a crew, or a flow on no thread); `release` is called once it settled. */
  #startHere(
    served: ServedDefinition,
    inputs: Record<string, unknown>,
    id: string | undefined,
    thread: string | undefined,
    release: () => void,
  ): Promise<RunRef> {
    const on = thread === undefined ? {} : { thread };
    const controller = new AbortController();
    const { signal } = controller;
    const store = this.#store;
    const run: StartedRun =
      served.kind === 'crew'
        ? served.crew.run({
            inputs,
            store,
            signal,
            events: 'store',
            // Its agents' text reaches the event streams as it is written (while anyone follows).
            stream: true,
            ...(id === undefined ? {} : { executionId: id }),
            ...on,
          })
        : served.flow.run({
            inputs: id === undefined ? inputs : { ...inputs, id },
            store,
            signal,
            events: 'store',
          });
    releaseWhen(run.result, release);
    this.#live.asked(controller, run.result);
    return trackStarted(this.#live, served, run, controller);
  }

  /**
   * Kicks a flow off on `thread` (a flow's `run` takes no thread: the kickoff reads the thread's last
   * run first) under `id` or a new one, and resolves once it holds its id here — its event journal
   * is registered then — tracked as live from then; rejects with what refused it first (`thread_busy`,
   * `run_exists`, `flow_mismatch`).
   */
  async #startOnThread(
    served: Extract<ServedDefinition, { kind: 'flow' }>,
    inputs: Record<string, unknown>,
    id: string | undefined,
    thread: string,
    release: () => void,
  ): Promise<RunRef> {
    const runId = id ?? globalThis.crypto.randomUUID();
    const store = this.#store;
    const controller = new AbortController();
    const holding = whenJournal(store, runId);
    const result = served.flow.kickoff({
      inputs: { ...inputs, id: runId },
      thread,
      store,
      signal: controller.signal,
      events: 'store',
    });
    releaseWhen(result, release);
    this.#live.asked(controller, result);
    try {
      await Promise.race([holding.registered, result.then(() => undefined, unlessSuspended)]);
    } finally {
      holding.cancel();
    }
    const journal = liveJournal(store, runId);
    const events$ =
      journal === undefined ? EMPTY : merge(journal.numbered$.pipe(map((e) => e.event)), journal.live$);
    this.#live.track(runId, { kind: 'flow', definition: served.name, events$, result }, controller);
    return { id: runId, definition: served.name, kind: 'flow' };
  }

  /** Submits a run to the queue: a worker holding the definition runs it, over its store. */
  async #submit(
    served: ServedDefinition,
    inputs: Record<string, unknown>,
    id: string | undefined,
  ): Promise<RunRef> {
    if (id !== undefined) {
      const head = await this.#store.readRun(id);
      if (head !== undefined) throw new RunExistsError('POST /runs', id, head.kind, head.name);
    }
    const queue = await this.#openQueue();
    // The run keeps its events in the store, so GET /runs/:id/events replays it like a run of this server.
    const submitted = await queue.submitRun(served.name, inputs, {
      events: 'store',
      ...(id === undefined ? {} : { id }),
    });
    return { id: submitted.id, definition: served.name, kind: served.kind };
  }

  /**
   * Asks the worker of the run queue that runs run `id` to abort it, and resolves true once its job
   * ended; false when this server has no run queue, or no worker runs that job now.
   */
  async abortQueued(id: string, reason: string): Promise<boolean> {
    if (this.#queueOptions === undefined) return false;
    const queue = await this.#openQueue();
    return queue.cancelRun(id, reason);
  }

  #openQueue(): Promise<RunQueue> {
    const options = this.#queueOptions ?? {};
    // BullMQ loads only for a server that submits runs.
    this.#queue ??= import('../queue/run-queue.js').then(({ createRunQueue }) => createRunQueue(options));
    return this.#queue;
  }

  /** Closes the run queue, if one was opened. */
  async close(): Promise<void> {
    const queue = await this.#queue?.catch(() => undefined);
    await queue?.close();
  }
}
