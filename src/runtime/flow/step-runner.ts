import type { AnyActorRef } from 'xstate';
import { toFailure } from '../../actors/failure.js';
import { runFlowStep } from '../../actors/flow-step.js';
import { withTimeLimit } from '../../actors/time-limit.js';
import { StepTimeoutError } from '../../errors.js';
import { chosenLabel } from '../../machines/flow/outcomes.js';
import {
  type AttemptOutcome,
  isWait,
  type LifecycleEmitted,
  type NodeWait,
} from '../../machines/lifecycle.js';
import type { TaskOutput } from '../../types.js';
import type { Clock } from '../engine/clock.js';
import { ChildWaits } from '../run/child-run.js';
import { failedEvent } from '../run/node-events.js';
import { NodeRunner, type NodeRunSpec } from '../run/node-runner.js';
import type { RunEvents } from '../run/run-events.js';
import { FlowChildWaits, flowWait } from './child-waits.js';
import { crewWait } from './crew-steps.js';
import type { StepContext, StepDefinition } from './definition.js';
import { type ForcedRoutes, forcedStep } from './forced-routes.js';
import { type SleepParts, sleepingStep } from './sleep-step.js';
import { StateDraft } from './state-draft.js';

/** One run of a flow step: which step, which of its runs, and the payload that triggered it. */
export interface StepRunSpec<S> extends NodeRunSpec {
  step: StepDefinition<S>;
  run: number;
  payload: unknown;
  /** A human or wait step that timed out: it completes with its `onTimeout` label. */
  timedOut?: boolean;
}

/** What the step runner needs of its flow run. */
export interface StepRunnerParts<S> {
  hub: RunEvents;
  clock: Clock;
  forced: ReadonlyMap<string, ForcedRoutes[string]>;
  /** The steps whose failure some `failed(...)` trigger handles. */
  handled: ReadonlySet<string>;
  /** What a sleep step's run sleeps with: its wake times, stored and to store. */
  sleep: Omit<SleepParts, 'clock' | 'hub' | 'waits'>;
  /** The run's state: an attempt of a step with retries works on a copy of it (`StateDraft`). */
  state: object;
  /** The context a step run's body gets, with `draft` as its state when the attempt has one. */
  contextFor(spec: StepRunSpec<S>, signal: AbortSignal, self: AnyActorRef, draft?: object): StepContext<S>;
  /**
   * Checks what a step run left — the state (a schema's `invalid_state`) and its output — before it
   * counts as completed; throwing fails the step.
   */
  checkState(spec: StepRunSpec<S>, output: unknown): void;
}

/** A step's return value as the `output` of its `node.completed` event (the shape tasks use). */
function stepOutput(name: string, value: unknown): TaskOutput {
  const base = { name, description: '', expectedOutput: '', agent: '' };
  if (typeof value === 'string') return { ...base, raw: value };
  let raw: string;
  try {
    raw = JSON.stringify(value) ?? String(value);
  } catch {
    raw = String(value);
  }
  return { ...base, raw, structured: value };
}

/**
 * Publishes a step run's lifecycle in the vocabulary task runs use (`node.ready`, `node.started`,
 * `node.completed`, `node.failed`, …, tagged with `step`), so one subscriber handles both, and the
 * flow-level record `flow.step` (and `flow.route` for a router) beside it.
 */
function publishStep<S>(
  hub: RunEvents,
  emitted: LifecycleEmitted,
  spec: StepRunSpec<S>,
  handled: ReadonlySet<string>,
): void {
  const step = spec.step.name;
  const base = { type: 'flow.step' as const, name: step, nodeId: spec.nodeId, run: spec.run };
  switch (emitted.type) {
    case 'node.started':
      hub.emit({ ...emitted, name: step, agent: '', step });
      // A retry is the same step run going on: `flow.step` said `retrying` already.
      if (emitted.attempt === 1) hub.emit({ ...base, status: 'started' });
      return;
    case 'node.retrying':
      hub.emit({ ...emitted, step });
      hub.emit({ ...base, status: 'retrying', attempt: emitted.attempt, delayMs: emitted.delayMs });
      return;
    case 'node.completed':
      hub.emit({
        type: 'node.completed',
        nodeId: emitted.nodeId,
        attempts: emitted.attempts,
        durationMs: emitted.durationMs,
        output: stepOutput(step, emitted.output),
        step,
      });
      hub.emit({ ...base, status: 'completed', output: emitted.output });
      if (spec.step.kind === 'router')
        hub.emit({ type: 'flow.route', router: step, label: String(emitted.output) });
      return;
    case 'node.failed': {
      const failed = failedEvent(emitted);
      hub.emit({ ...failed, step });
      if (emitted.willRetry) return; // the step run goes on: `node.retrying` follows
      const { error, code, retryable, details } = failed;
      hub.emit({
        ...base,
        status: 'failed',
        error,
        retryable,
        ...(code === undefined ? {} : { code }),
        ...(details === undefined ? {} : { details }),
        ...(handled.has(step) ? { handled: true } : {}),
      });
      return;
    }
    case 'node.waiting': {
      const { nodeId, attempt, waiting } = emitted;
      hub.emit({ type: 'node.waiting', nodeId, attempt, waitingFor: waiting.waitingFor, step });
      return;
    }
    default:
      hub.emit({ ...emitted, step });
  }
}

const STEPS = Symbol('steps');

/**
 * What a step run's attempt that threw `error` waits for instead of failing: a crew it kicked off
 * that paused, or its child flow that paused.
 */
function waitOf<S>(spec: StepRunSpec<S>): (error: unknown) => NodeWait | undefined {
  return (error) =>
    error instanceof ChildWaits
      ? crewWait(spec, error)
      : error instanceof FlowChildWaits
        ? flowWait(spec, error)
        : undefined;
}

/**
 * One attempt of a step run: under its time limit when the step has one, on its own copy of the state
 * when the step has retries (what it changed lands only when it completes and passes its checks).
 */
async function attemptStep<S>(
  parts: StepRunnerParts<S>,
  spec: StepRunSpec<S>,
  step: StepDefinition<S>,
  signal: AbortSignal,
  self: AnyActorRef,
) {
  const { timeoutMs, retries, name } = spec.step;
  const attempt = (attemptSignal: AbortSignal) => {
    const draft = retries > 0 ? new StateDraft(parts.state, name) : undefined;
    return runFlowStep(step, parts.contextFor(spec, attemptSignal, self, draft?.state), signal, {
      now: parts.hub.now,
      waits: waitOf(spec),
      check: (output) => {
        draft?.land();
        try {
          parts.checkState(spec, output);
        } catch (error) {
          draft?.undo();
          throw error;
        }
      },
    });
  };
  try {
    if (timeoutMs === undefined) return await attempt(signal);
    const expired = () => new StepTimeoutError(name, timeoutMs);
    return await withTimeLimit(signal, timeoutMs, expired, attempt, parts.clock);
  } catch (error) {
    // The run stopped (rethrown), the time limit passed, or the state could not be copied.
    signal.throwIfAborted();
    return { ok: false as const, error: toFailure(error), finishedAt: parts.hub.now() };
  }
}

/** A completed step run's outcome with the label it chose (a router's route…), for the flow machine. */
function labelled<S>(spec: StepRunSpec<S>, outcome: Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  const { kind } = spec.step;
  if (kind !== 'router' && kind !== 'human' && spec.timedOut !== true) return outcome;
  return outcome.then((done) =>
    !isWait(done) && done.ok
      ? { ...done, label: chosenLabel(spec.step, done.output, spec.timedOut === true) }
      : done,
  );
}

/** The runner of a flow run's step runs: each a lifecycle actor whose work is the step's body. */
export function createStepRunner<S>(parts: StepRunnerParts<S>): NodeRunner<StepRunSpec<S>> {
  const { hub, forced } = parts;
  /** One attempt of step run `spec`: its body, with what the step's options and the forced routes say. */
  const attemptOf = (
    spec: StepRunSpec<S>,
    attempt: number,
    signal: AbortSignal,
    self: AnyActorRef,
  ): Promise<AttemptOutcome> => {
    // A human step's forced route is its answer already (the round driver gives it); a router's
    // label, and a forced failure, are applied here.
    const forcedOrDefined = forcedStep(spec.step, forced, spec.run);
    const step =
      spec.step.kind === 'sleep' && forcedOrDefined === spec.step
        ? sleepingStep(forcedOrDefined, spec.nodeId, {
            ...parts.sleep,
            clock: parts.clock,
            hub,
            // A sleeping step run waits, and goes on by itself at its wake time.
            waits: (wakeAt) =>
              self.send({
                type: 'WORK.WAITING',
                attempt,
                waiting: { waitingFor: { kind: 'sleep', wakeAt } },
                at: parts.clock.now(),
              }),
          })
        : forcedOrDefined;
    if (spec.step.retries > 0 || spec.step.timeoutMs !== undefined) {
      return attemptStep(parts, spec, step, signal, self);
    }
    // The common step: no copy of the state, no timer, no frame more than before.
    return runFlowStep(step, parts.contextFor(spec, signal, self), signal, {
      now: hub.now,
      waits: waitOf(spec),
      check: (output) => parts.checkState(spec, output),
    });
  };
  return new NodeRunner<StepRunSpec<S>>(
    {
      // One executor actor per flow run runs every step.
      workerOf: () => ({ key: STEPS, name: 'steps' }),
      attempt(spec, attempt, signal, self) {
        return labelled(spec, attemptOf(spec, attempt, signal, self));
      },
      publish(emitted, spec) {
        if (spec !== undefined) publishStep(hub, emitted, spec, parts.handled);
      },
    },
    parts.clock,
    hub.runId,
  );
}
