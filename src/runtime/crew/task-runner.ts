import type { ConversationExecutor } from '../../actors/conversation-job.js';
import { toFailure } from '../../actors/failure.js';
import {
  type AttemptHooks,
  type AttemptSpec,
  runTaskAttempt,
  type TaskRunValue,
} from '../../actors/task-attempt.js';
import { InvalidStateError } from '../../errors.js';
import type { LifecycleEmitted, WorkOutcome } from '../../machines/lifecycle.js';
import type { StatecrewEvent, TaskOutput } from '../../types.js';
import { encodeRunValue, UnstorableValueError } from '../durable/codec.js';
import type { CallGate } from '../engine/budget.js';
import type { Clock } from '../engine/clock.js';
import type { EventHub } from '../engine/event-hub.js';
import { LifecycleRunner } from '../engine/lifecycle-runner.js';
import { waitTurn } from '../engine/rate-limit.js';
import type { NodeRecord, RunRecorder } from '../engine/recorder.js';
import type { StoredTaskResult } from './crew-store.js';
import type { RunMemory } from './memory.js';

/** A task run to start: what its attempts need, how many attempts it may take and their backoff. */
export interface TaskRunSpec extends AttemptSpec {
  maxAttempts: number;
  retryDelayMs: number;
}

/** The runner of a crew's task runs: agent runs as work, lifecycle transitions as crew events. */
export type TaskRunner = LifecycleRunner<TaskRunSpec>;

/**
 * Stores a task run that settled for good (completed, or failed with no retry left); the runner starts
 * nothing more until the returned write lands (it must not reject).
 */
export type SettledTaskWriter = (record: NodeRecord, spec: TaskRunSpec) => Promise<void>;

/** What a crew run's task runner does besides running tasks. */
export interface TaskRunnerOptions {
  /** Stores each task run that settles for good. */
  store?: SettledTaskWriter | undefined;
  /** Completed results kept from an earlier run, by node id: these tasks complete with them at once. */
  restored?: ReadonlyMap<string, StoredTaskResult> | undefined;
  /** What the run's model calls may spend, and what they cost. */
  gate?: CallGate | undefined;
  /** Every agent streams its model's text. */
  stream?: boolean | undefined;
  /** Holds the attempts' conversations elsewhere (a queue of workers). */
  executor?: ConversationExecutor | undefined;
  /** The run's execution memory, which the results tool reads. */
  memory?: RunMemory | undefined;
}

/**
 * Creates the task runner of one crew run: it records each task run's lifecycle in `recorder`, and
 * builds and publishes the run's events on `hub` only when someone listens; backoffs wait on `clock`.
 * With `store`, every task run that settles for good is written before any other run starts.
 */
export function createTaskRunner(
  hub: EventHub,
  recorder: RunRecorder,
  clock: Clock,
  options: TaskRunnerOptions = {},
): TaskRunner {
  const { store, restored } = options;
  const stored = (nodeId: string, spec: TaskRunSpec) => {
    const record = recorder.nodes.get(nodeId);
    if (store !== undefined && record !== undefined) runner.hold(store(record, spec));
  };
  /** Why each run's last attempt was rejected by a guardrail: its next attempt is told. */
  const feedback = new Map<string, string>();
  const withFeedback = (spec: TaskRunSpec): TaskRunSpec => {
    const reason = feedback.get(spec.nodeId);
    return reason === undefined ? spec : { ...spec, feedback: reason };
  };
  /** One attempt: the task's work — or, for a task whose completed result the store kept, that result. */
  const attempt = (spec: TaskRunSpec, attemptNo: number, signal: AbortSignal): Promise<WorkOutcome> => {
    const result = restored?.get(spec.nodeId);
    if (result === undefined) {
      const outcome = runTaskAttempt(withFeedback(spec), attemptNo, signal, hooks);
      return store === undefined ? outcome : outcome.then((done) => storable(spec.name, done));
    }
    // Its stored output, without asking the model again.
    const output: TaskRunValue = { raw: result.raw ?? '' };
    if (result.structured !== undefined) output.structured = result.structured;
    return Promise.resolve({ ok: true, output, finishedAt: hub.now() });
  };
  const { beforeCall, priceOf } = options.gate ?? {};
  const hooks: AttemptHooks = {
    now: hub.now,
    ...(beforeCall === undefined ? {} : { beforeModelCall: beforeCall }),
    ...(options.stream === true ? { stream: true } : {}),
    ...(priceOf === undefined ? {} : { priceOf }),
    ...(options.memory === undefined
      ? {}
      : {
          memoryFor: (nodeId: string, attempt: number) =>
            (options.memory as RunMemory).forAttempt((usage, durationMs) =>
              hooks.onModelCall(nodeId, attempt, usage, durationMs),
            ),
        }),
    ...(options.executor === undefined
      ? {}
      : {
          executor: options.executor,
          runId: hub.runId,
          onWorker: (nodeId: string, worker: string) => recorder.worker(nodeId, worker),
        }),
    waitTurn(agent, signal) {
      const turns: Promise<void>[] = [];
      if (agent.maxRpm !== undefined)
        turns.push(waitTurn(agent.rateKey ?? agent, agent.maxRpm, clock, signal));
      const { llm } = agent;
      if (typeof llm === 'object' && llm.maxRpm !== undefined)
        turns.push(waitTurn(llm, llm.maxRpm, clock, signal));
      return Promise.all(turns).then(() => {});
    },
    onDelta(nodeId, attempt, delta) {
      if (hub.observed) {
        hub.publish({ type: 'model.delta', runId: hub.runId, at: hub.now(), nodeId, attempt, delta });
      }
    },
    onModelCall(nodeId, attempt, usage, durationMs, failure) {
      recorder.modelCall(nodeId, usage);
      if (!hub.observed) return;
      const event: StatecrewEvent = {
        type: 'model.call',
        runId: hub.runId,
        at: hub.now(),
        nodeId,
        attempt,
        usage,
        durationMs,
      };
      if (failure !== undefined) event.error = failure.message;
      if (failure?.code !== undefined) event.code = failure.code;
      hub.publish(event);
    },
    onToolCall: (nodeId, call) => hub.emit({ type: 'tool.call', nodeId, call }),
  };
  const runner: TaskRunner = new LifecycleRunner<TaskRunSpec>(
    {
      workerOf: (spec) => ({ key: spec.agent, name: spec.agent.role }),
      attempt,
      publish(emitted, spec) {
        switch (emitted.type) {
          case 'node.ready':
            // Nothing records readiness: the event exists for listeners only.
            if (hub.observed)
              hub.publish({ type: 'node.ready', runId: hub.runId, at: hub.now(), nodeId: emitted.nodeId });
            return;
          case 'node.started': {
            if (spec === undefined) return;
            const at = hub.now();
            recorder.started(emitted.nodeId, spec.name, spec.agent.role, emitted.attempt, at);
            if (hub.observed) {
              const { nodeId, attempt } = emitted;
              const { name, agent } = spec;
              hub.publish({
                type: 'node.started',
                runId: hub.runId,
                at,
                nodeId,
                attempt,
                name,
                agent: agent.role,
                prompt: promptOf(spec),
                context: spec.context,
              });
            }
            return;
          }
          case 'node.completed': {
            if (spec === undefined) return;
            const output = taskOutput(spec, emitted.output as TaskRunValue);
            recorder.completed(emitted.nodeId, output, emitted.durationMs);
            const result = restored?.get(emitted.nodeId);
            if (result !== undefined) recorder.restored(emitted.nodeId, result);
            if (store !== undefined) stored(emitted.nodeId, spec);
            if (hub.observed) {
              const { nodeId, attempts, durationMs } = emitted;
              const at = hub.now();
              hub.publish({
                type: 'node.completed',
                runId: hub.runId,
                at,
                nodeId,
                attempts,
                durationMs,
                output,
              });
            }
            return;
          }
          case 'node.failed':
            // A rejected output (a guardrail's reason, the schema's issues) is told to the next attempt.
            if (emitted.willRetry && emitted.error.code === 'guardrail_rejected') {
              const reason = (emitted.error.details as { reason?: unknown } | undefined)?.reason;
              feedback.set(emitted.nodeId, typeof reason === 'string' ? reason : emitted.error.message);
            } else if (emitted.willRetry && emitted.error.code === 'output_invalid') {
              feedback.set(emitted.nodeId, emitted.error.message);
            } else feedback.delete(emitted.nodeId);
            hub.emit(failedEvent(emitted));
            if (store !== undefined && spec !== undefined && !emitted.willRetry) stored(emitted.nodeId, spec);
            return;
          default:
            hub.emit(emitted);
        }
      },
    },
    clock,
    hub.runId,
  );
  return runner;
}

/**
 * An attempt's outcome as a run with a store can keep it: a structured output no store can keep (a
 * function, a class instance) fails the attempt with `invalid_state` naming its path, before anything
 * of it is written.
 */
function storable(task: string, outcome: WorkOutcome): WorkOutcome {
  if (!outcome.ok) return outcome;
  const value = outcome.output as TaskRunValue;
  if (!('structured' in value)) return outcome;
  try {
    encodeRunValue(value.structured);
    return outcome;
  } catch (error) {
    if (!(error instanceof UnstorableValueError)) throw error;
    const failure = InvalidStateError.unstorable(task, `structured${error.path}`, error.reason);
    return { ok: false, error: toFailure(failure), finishedAt: outcome.finishedAt };
  }
}

/** What a task run's agent is asked: its persona and the task lines (`Agent.renderPrompt`). */
export function promptOf(spec: TaskRunSpec): string {
  return spec.agent.taskPrompt(spec.description, spec.expectedOutput).text;
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

/** A lifecycle's `node.failed` as a run event: the failure's message, code, retry flag and details. */
export function failedEvent(emitted: Extract<LifecycleEmitted, { type: 'node.failed' }>) {
  const { error, ...rest } = emitted;
  return {
    ...rest,
    error: error.message,
    retryable: error.retryable,
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}
