import { type Job, WaitingError } from 'bullmq';
import { toFailure } from '../actors/failure.js';
import { isStatecrewError, UnknownDefinitionError } from '../errors.js';
import type { Store } from '../stores/store.js';
import { toJson } from '../stores/store.js';
import {
  isFlow,
  type QueueableCrew,
  type QueueableFlow,
  type QueuedRunOptions,
  type RunDefinitions,
  type RunEnd,
} from './definitions.js';
import { resumeWhenFree } from './locked-run.js';
import type { RunJob, RunJobResult } from './run-queue.js';

const isCode = (error: unknown, ...codes: string[]) => isStatecrewError(error) && codes.includes(error.code);

/**
 * Starts run `id` of `definition`; one its store already holds (its worker died; another took the
 * job over) is resumed instead, once no other owner runs it (waiting ends when `stop` aborts).
 */
function runWhole(
  definition: QueueableCrew | QueueableFlow,
  id: string,
  inputs: Record<string, unknown>,
  options: QueuedRunOptions,
  stop: AbortSignal,
): Promise<RunEnd> {
  const orResume = (resume: () => Promise<RunEnd>) => (error: unknown) =>
    isCode(error, 'run_exists') ? resumeWhenFree(resume, options.store, id, stop) : Promise.reject(error);
  if (isFlow(definition)) {
    return definition
      .kickoff({ inputs: { ...inputs, id }, ...options })
      .catch(orResume(() => definition.resume(id, undefined, options)));
  }
  return definition
    .kickoff({ executionId: id, inputs, ...options })
    .catch(orResume(() => definition.resume(id, options)));
}

/**
 * The processor of whole runs: the named definition's run under the job's id, kept in `store` (else
 * the definition's own). A run its store already holds (its worker died; another took the job over)
 * is resumed rather than started again; one that another owner still runs is waited for (until
 * `stop` aborts, when the worker closes), and the job ends with the run's end. Cancelling the job
 * (BullMQ's `cancelJob`, which a `cancelRun` elsewhere asks for) aborts the run: it is kept as
 * `aborted`, and so is the job's result. The worker closing (`stop` aborted with a `GracefulStop`)
 * suspends the run: kept `running` with no lease, its job goes back to the queue.
 */
export function runProcessor(
  definitions: RunDefinitions,
  store: Store | undefined,
  worker: string,
  stop: AbortSignal = new AbortController().signal,
) {
  // BullMQ hands a processor the job's signal only when it declares the third parameter.
  return async (job: Job<RunJob>, token?: string, signal?: AbortSignal): Promise<RunJobResult> => {
    const { name, inputs, id, events } = job.data;
    const definition = definitions[name];
    const base = { id, name, worker };
    if (definition === undefined) {
      const failure = toFailure(new UnknownDefinitionError(name, Object.keys(definitions)));
      return { ...base, kind: undefined, status: 'failed', output: null, failure };
    }
    const kept = store ?? definition.store;
    const kind = isFlow(definition) ? 'flow' : 'crew';
    // A job submitted before runs could keep their events has no `events`: its run keeps none.
    // The worker closing (`stop`, a `GracefulStop`) suspends the run; cancelling the job aborts it.
    const either = signal === undefined ? stop : AbortSignal.any([stop, signal]);
    const options: QueuedRunOptions = {
      ...(kept === undefined ? {} : { store: kept }),
      ...(events === undefined ? {} : { events }),
      signal: either,
    };
    try {
      const out = await runWhole(definition, id, inputs, options, either);
      return { ...base, kind, status: out.status, output: toJson(out.output) };
    } catch (error) {
      if (isCode(error, 'suspended') && token !== undefined) {
        // Kept `running` with no lease: the job goes back to the queue, and the worker that takes it
        // resumes the run from its last commit.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      const status = isCode(error, 'aborted') ? 'aborted' : 'failed';
      return { ...base, kind, status, output: null, failure: toFailure(error) };
    }
  };
}
