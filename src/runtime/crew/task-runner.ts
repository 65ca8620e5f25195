import type { ConsultOutcome, ConsultRequest } from '../../actors/consult.js';
import { toFailure } from '../../actors/failure.js';
import type { TaskWait } from '../../actors/pause.js';
import {
  type AttemptHooks,
  type AttemptSpec,
  attemptPrompt,
  runTaskAttempt,
  type TaskRunValue,
} from '../../actors/task-attempt.js';
import { InternalError, InvalidStateError } from '../../errors.js';
import {
  type AttemptOutcome,
  isWait,
  type LifecycleEmitted,
  type NodeWait,
} from '../../machines/lifecycle.js';
import type { TaskOutput } from '../../types.js';
import { encodeRunValue, UnstorableValueError } from '../durable/codec.js';
import type { Clock } from '../engine/clock.js';
import type { NodeRecord, RunRecorder } from '../engine/recorder.js';
import { failedEvent } from '../run/node-events.js';
import { type NodeKind, NodeRunner, type NodeWorker } from '../run/node-runner.js';
import type { RunEvents, UnstampedEvent } from '../run/run-events.js';
import type { Agent } from './agent.js';
import { type AttemptHookOptions, attemptHooks } from './attempt-hooks.js';
import type { StoredTaskResult } from './crew-store.js';
import { DelegationDesk, type DelegationOptions } from './delegation-desk.js';
import { type OutputTarget, writtenOutcome } from './output-file.js';
import { countedOn, type WaitingTasks } from './waiting-tasks.js';

/** A task run to start: what its attempts need, how many attempts it may take and their backoff. */
export interface TaskRunSpec extends AttemptSpec {
  maxAttempts: number;
  retryDelayMs: number;
  /**
   * Attempts an earlier run of this execution used before this one (a run that waited for a human):
   * its attempts count on from them. @default 0
   */
  attemptsBefore?: number;
  /** Where a completed run's output is written, if anywhere: a failed write fails the run. */
  outputFile?: OutputTarget | undefined;
}

/** The runner of a crew's task runs: agent runs as work, lifecycle transitions as crew events. */
export type TaskRunner = NodeRunner<TaskRunSpec>;

/**
 * Stores a task run that settled for good (completed, or failed with no retry left); the runner starts
 * nothing more until the returned write lands (it must not reject).
 */
export type SettledTaskWriter = (record: NodeRecord, spec: TaskRunSpec) => Promise<void>;

/** What a crew run's task runner does besides running tasks (and besides what its attempts report to). */
export interface TaskRunnerOptions extends AttemptHookOptions {
  /** Stores each task run that settles for good. */
  store?: SettledTaskWriter | undefined;
  /** Completed results kept from an earlier run, by node id: these tasks complete with them at once. */
  restored?: ReadonlyMap<string, StoredTaskResult> | undefined;
  /** The crew's agents and depth bound, for agents that delegate (`allowDelegation`). */
  delegation?: DelegationOptions | undefined;
  /** Runs a resumed run found waiting for a human, and the answers they go on with. */
  waiting?: WaitingTasks | undefined;
}

/**
 * Creates the task runner of one crew run: it records each task run's lifecycle in `recorder`, and
 * builds and publishes the run's events on `hub` only when someone listens; backoffs wait on `clock`.
 * With `store`, every task run that settles for good is written before any other run starts.
 */
export function createTaskRunner(
  hub: RunEvents,
  recorder: RunRecorder,
  clock: Clock,
  options: TaskRunnerOptions = {},
): TaskRunner {
  const hooks = attemptHooks(hub, recorder, clock, options);
  const work = new TaskRunWork(hub, recorder, hooks, options);
  const runner: TaskRunner = new NodeRunner<TaskRunSpec>(work, clock, hub.runId);
  work.runner = runner;
  if (options.delegation !== undefined)
    work.desk = new DelegationDesk(options.delegation, hub, hooks, (worker) => runner.actorOf(worker));
  return runner;
}

/**
 * What a crew's task runs plug into their runner: their attempts, and each lifecycle transition turned
 * into records, store writes and events. The one place that holds a runner's state across its runs
 * (the guardrail feedback); its methods run per task, so they allocate nothing they need not.
 */
class TaskRunWork implements NodeKind<TaskRunSpec> {
  readonly #hub: RunEvents;
  readonly #recorder: RunRecorder;
  readonly #hooks: AttemptHooks;
  readonly #store: SettledTaskWriter | undefined;
  readonly #restored: ReadonlyMap<string, StoredTaskResult> | undefined;
  readonly #waiting: WaitingTasks | undefined;
  /** Why each run's last attempt was rejected by a guardrail: its next attempt is told. */
  readonly #feedback = new Map<string, string>();
  /** The runner these runs belong to, which holds their store writes: set right after it is created. */
  runner: TaskRunner | undefined;
  /** The run's delegations, when any agent may delegate: set right after the runner is created. */
  desk: DelegationDesk | undefined;

  constructor(hub: RunEvents, recorder: RunRecorder, hooks: AttemptHooks, options: TaskRunnerOptions) {
    this.#hub = hub;
    this.#recorder = recorder;
    this.#hooks = hooks;
    this.#store = options.store;
    this.#restored = options.restored;
    this.#waiting = options.waiting;
  }

  workerOf(spec: TaskRunSpec): NodeWorker {
    return { key: spec.agent, name: spec.agent.role };
  }

  /**
   * One attempt: the task's work — or, for a task whose completed result the store kept, that result —
   * with the output written to the task's output file once it completed.
   */
  attempt(spec: TaskRunSpec, attemptNo: number, signal: AbortSignal): Promise<AttemptOutcome> {
    const outcome = this.#outcome(spec, attemptNo, signal);
    const { outputFile } = spec;
    return outputFile === undefined
      ? outcome
      : outcome.then((done): AttemptOutcome | Promise<AttemptOutcome> =>
          isWait(done) ? done : writtenOutcome(spec.name, outputFile, done),
        );
  }

  /** The attempt's outcome before its output file is written. */
  #outcome(spec: TaskRunSpec, attemptNo: number, signal: AbortSignal): Promise<AttemptOutcome> {
    const result = this.#restored?.get(spec.nodeId);
    if (result === undefined) {
      const outcome = this.#waiting?.has(spec.nodeId)
        ? this.#goOn(spec, attemptNo, signal)
        : runTaskAttempt(this.#granted(this.#withFeedback(spec), attemptNo), attemptNo, signal, this.#hooks);
      return this.#store === undefined ? outcome : outcome.then((done) => storable(spec.name, done));
    }
    // Its stored output, without asking the model again (its output file is written again, the same).
    const output: TaskRunValue = { raw: result.raw ?? '' };
    if (result.structured !== undefined) output.structured = result.structured;
    return Promise.resolve({ ok: true, output, finishedAt: this.#hub.now() });
  }

  /** An attempt of a run that waited for a human: as the answers say, counting on from its attempts. */
  #goOn(spec: TaskRunSpec, attemptNo: number, signal: AbortSignal): Promise<AttemptOutcome> {
    const asked = (this.#waiting as WaitingTasks).attempt(
      this.#withFeedback(spec),
      attemptNo,
      this.#hub.now(),
    );
    if ('outcome' in asked) return Promise.resolve(asked.outcome);
    // A task that waited inside a delegation goes on through the same delegation tools.
    return runTaskAttempt(this.#granted(asked.spec, asked.attemptNo), asked.attemptNo, signal, this.#hooks);
  }

  publish(raw: LifecycleEmitted, spec: TaskRunSpec | undefined): void {
    const emitted = spec?.attemptsBefore === undefined ? raw : countedOn(raw, spec.attemptsBefore);
    switch (emitted.type) {
      case 'node.ready':
        // Nothing records readiness: the event exists for listeners only.
        if (this.#hub.observed) this.#hub.emit({ type: 'node.ready', nodeId: emitted.nodeId });
        return;
      case 'node.started':
        if (spec !== undefined) this.#started(emitted, spec);
        return;
      case 'node.completed':
        if (spec !== undefined) this.#completed(emitted, spec);
        return;
      case 'node.failed':
        this.#failed(emitted, spec);
        return;
      case 'node.waiting':
        if (spec !== undefined) this.#waited(emitted, spec);
        return;
      default:
        this.#hub.emit(emitted);
    }
  }

  #started(emitted: Emitted<'node.started'>, spec: TaskRunSpec): void {
    const hub = this.#hub;
    const { nodeId, attempt } = emitted;
    const event: UnstampedEvent = {
      type: 'node.started',
      nodeId,
      attempt,
      name: spec.name,
      agent: spec.agent.role,
    };
    // What the agent is asked costs a prompt's rendering: built only for someone who reads it.
    if (hub.observed) Object.assign(event, { prompt: promptOf(spec), context: spec.context });
    hub.emit(event);
    if (spec.attemptsBefore !== undefined) this.#waiting?.started(nodeId, attempt, this.#recorder);
  }

  #completed(emitted: Emitted<'node.completed'>, spec: TaskRunSpec): void {
    const { nodeId, attempts, durationMs } = emitted;
    const output = taskOutput(spec, emitted.output as TaskRunValue);
    this.#hub.emit({ type: 'node.completed', nodeId, attempts, durationMs, output });
    const result = this.#restored?.get(nodeId);
    if (result !== undefined) this.#recorder.restored(nodeId, result);
    // After the event: a run that keeps its events commits it with the record.
    if (this.#store !== undefined) this.#stored(nodeId, spec);
  }

  /** A run waits for a human: told as such, and kept with what it waits for (not as a failure). */
  #waited(emitted: Emitted<'node.waiting'>, spec: TaskRunSpec): void {
    const { nodeId, attempt, waiting } = emitted;
    this.#hub.emit({ type: 'node.waiting', nodeId, attempt, waitingFor: waiting.waitingFor });
    const record = this.#recorder.nodes.get(nodeId);
    if (record !== undefined) record.wait = waiting.keep as TaskWait;
    if (this.#store !== undefined) this.#stored(nodeId, spec);
  }

  #failed(emitted: Emitted<'node.failed'>, spec: TaskRunSpec | undefined): void {
    // A rejected output (a guardrail's reason, the schema's issues) is told to the next attempt.
    if (emitted.willRetry && emitted.error.code === 'guardrail_rejected') {
      const reason = (emitted.error.details as { reason?: unknown } | undefined)?.reason;
      this.#feedback.set(emitted.nodeId, typeof reason === 'string' ? reason : emitted.error.message);
    } else if (emitted.willRetry && emitted.error.code === 'output_invalid') {
      this.#feedback.set(emitted.nodeId, emitted.error.message);
    } else this.#feedback.delete(emitted.nodeId);
    this.#hub.emit(failedEvent(emitted));
    if (this.#store !== undefined && spec !== undefined && !emitted.willRetry)
      this.#stored(emitted.nodeId, spec);
  }

  /** A coworker's conversation, asked of an agent's actor by another agent's (a delegation). */
  consult(request: ConsultRequest, signal: AbortSignal): Promise<ConsultOutcome> {
    if (this.desk === undefined)
      return Promise.reject(new InternalError('TaskRunWork.consult', 'No delegations in this run'));
    return this.desk.consult(request, signal);
  }

  /** The spec an attempt runs with: its agent's delegation tools added, when it may delegate. */
  #granted<S extends AttemptSpec>(spec: S, attemptNo: number): S {
    if (this.#hooks.executor !== undefined) {
      const delegation = this.desk?.remoteGrant(spec.agent);
      return delegation === undefined ? spec : { ...spec, delegation };
    }
    const tools = this.desk?.toolsFor(spec.agent as Agent, spec.nodeId, attemptNo);
    return tools === undefined ? spec : { ...spec, crewTools: [...(spec.crewTools ?? []), ...tools] };
  }

  /** The spec an attempt runs with: told why the run's last attempt was rejected, if it was. */
  #withFeedback(spec: TaskRunSpec): TaskRunSpec {
    const reason = this.#feedback.get(spec.nodeId);
    return reason === undefined ? spec : { ...spec, feedback: reason };
  }

  /** Writes a run that settled for good; the runner starts nothing more until the write lands. */
  #stored(nodeId: string, spec: TaskRunSpec): void {
    const record = this.#recorder.nodes.get(nodeId);
    if (this.#store !== undefined && record !== undefined) this.runner?.hold(this.#store(record, spec));
  }
}

/** One kind of lifecycle transition. */
type Emitted<K extends LifecycleEmitted['type']> = Extract<LifecycleEmitted, { type: K }>;

/**
 * An attempt's outcome as a run with a store can keep it: a structured output no store can keep (a
 * function, a class instance) fails the attempt with `invalid_state` naming its path, before anything
 * of it is written.
 */
function storable(task: string, outcome: AttemptOutcome): AttemptOutcome {
  // A completed run's value, or the output a waiting run keeps for its review.
  const value = isWait(outcome)
    ? reviewedOutput(outcome.waiting)
    : outcome.ok
      ? (outcome.output as TaskRunValue)
      : undefined;
  if (value === undefined || !('structured' in value)) return outcome;
  try {
    encodeRunValue(value.structured);
    return outcome;
  } catch (error) {
    if (!(error instanceof UnstorableValueError)) throw error;
    const failure = InvalidStateError.unstorable(task, `structured${error.path}`, error.reason);
    return { ok: false, error: toFailure(failure), finishedAt: outcome.finishedAt };
  }
}

/** The output a waiting attempt holds for a human's review, when it waits for one. */
function reviewedOutput(waiting: NodeWait): TaskRunValue | undefined {
  const wait = waiting.keep as TaskWait;
  return wait.kind === 'review' ? wait.output : undefined;
}

/** What a task run's agent is asked: its persona and the task lines (`Agent.renderPrompt`). */
export function promptOf(spec: TaskRunSpec): string {
  return attemptPrompt(spec).text;
}

/** A completed run's output as its result entry and `node.completed` event carry it. */
function taskOutput(spec: TaskRunSpec, value: TaskRunValue): TaskOutput {
  const output: TaskOutput = {
    name: spec.name,
    description: spec.description,
    expectedOutput: spec.expectedOutput,
    agent: spec.agent.role,
    raw: value.raw,
  };
  if ('structured' in value) output.structured = value.structured;
  return output;
}
