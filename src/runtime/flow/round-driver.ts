import type { AnyActorRef } from 'xstate';
import { MaxRunsError, StepTimeoutError } from '../../errors.js';
import type { FlowEffects } from '../../machines/flow/flow-machine.js';
import { chosenLabel, FAILED_OUTCOME } from '../../machines/flow/outcomes.js';
import { type FlowRoundState, runNodeId } from '../../machines/flow/round-state.js';
import type { ScheduledStep } from '../../machines/flow/rounds.js';
import { type PendingStep, type SnapshotRound, waitingStepOf } from '../../machines/flow/waits.js';
import type { WaitingFor } from '../../types.js';
import type { NodeRunner } from '../run/node-runner.js';
import type { RunEvents } from '../run/run-events.js';
import type { FlowCrewWaits } from './crew-steps.js';
import type { StepDefinition } from './definition.js';
import { forcedOutcome, forcedStep } from './forced-routes.js';
import type { FlowRecorder } from './recorder.js';
import type { SnapshotStepRun, StepAnswer } from './snapshot.js';
import { StepInputs } from './step-inputs.js';
import type { StepRunSpec } from './step-runner.js';

/** What the round driver works with. */
export interface RoundDriverParts<S> {
  steps: readonly StepDefinition<S>[];
  hub: RunEvents;
  recorder: FlowRecorder;
  runner: NodeRunner<StepRunSpec<S>>;
  /**
   * Where an earlier run of this flow run stopped: its completed rounds, the step runs done since, and
   * the steps it waited for (their deadlines hold).
   */
  resume?:
    | { rounds: readonly SnapshotRound[]; done: readonly SnapshotStepRun[]; pending?: readonly PendingStep[] }
    | undefined;
  /** The answers a resumed paused run was given, for its waiting steps. */
  answers?: readonly StepAnswer[] | undefined;
  /** Route labels forced per router or human step (a forced human step does not pause). */
  forced?: ReadonlyMap<string, string | readonly string[]> | undefined;
  /** What a human step asks, for the run's state and the step's payload. */
  promptOf?: ((step: StepDefinition<S>, payload: unknown) => string) | undefined;
  /**
   * Called after each step run settled (its result recorded), with the run when it completed, in
   * round `round` (from 1, counting the rounds an earlier run completed); undefined when it failed.
   */
  onStepSettled?: ((completed: (SnapshotStepRun & { round: number }) | undefined) => void) | undefined;
  /** Called when round `n` (from 1) completed, before the next one starts. */
  onRoundCompleted?: ((n: number, round: SnapshotRound) => void) | undefined;
  /** The steps whose crews wait for a human: found waiting by the resumed run, or paused in this one. */
  crewWaits?: FlowCrewWaits | undefined;
}

/** A flow run's effects for its machine, and the steps it waits for. */
export interface RoundDriver extends FlowEffects {
  /** The human and wait steps the run waits for (empty unless it paused). */
  waiting(): PendingStep[];
}

/**
 * The effects a flow's machine calls: start a round's step runs (or tell the machine which completed
 * before, or wait), publish and store what settled and each closed round, and tell completed runs'
 * outcomes. The round state itself is the machine's (`FlowRoundState`).
 */
export function createRoundDriver<S>(parts: RoundDriverParts<S>): RoundDriver {
  return new FlowRoundDriver(parts);
}

/**
 * The body a human or wait step runs once it has `answer`: a human's `{ route, feedback }`, a signal's
 * payload, or — timed out — `{ route, timedOut: true }` for a human and `{ timedOut: true }` for a
 * wait with an `onTimeout` label, else a `step_timeout` failure.
 */
function answerOutput<S>(step: StepDefinition<S>, answer: StepAnswer): () => unknown {
  if (answer.kind === 'human') {
    const output = { route: answer.route, feedback: answer.feedback };
    return () => output;
  }
  if (answer.kind === 'signal') return () => answer.payload;
  const { onTimeout, deadlineMs } = step;
  if (onTimeout === undefined) {
    return () => {
      throw new StepTimeoutError(step.name, deadlineMs ?? 0);
    };
  }
  const output =
    step.kind === 'human' ? { route: onTimeout, feedback: undefined, timedOut: true } : { timedOut: true };
  return () => output;
}

/** One step run of the round in progress. */
interface RoundRun<S> {
  step: StepDefinition<S>;
  nodeId: string;
  run: number;
}

/**
 * The runtime side of one flow run's rounds: what only the running process knows — the answers a
 * resumed run was given, the step runs an earlier run completed, deadlines already set, the outputs
 * that decide outcomes — and the events and writes of each round.
 */
class FlowRoundDriver<S> implements RoundDriver {
  readonly #parts: RoundDriverParts<S>;
  readonly #byName: ReadonlyMap<string, StepDefinition<S>>;
  readonly #inputs: StepInputs<S>;
  /** Rounds an earlier run completed: this run's round numbers go on from them. */
  readonly #offset: number;
  /** Step runs an earlier run completed in the round it stopped in: they do not run again. */
  readonly #doneBefore: ReadonlySet<string>;
  /** The deadlines of the steps an earlier run waited for, by node id: they hold. */
  readonly #deadlines: ReadonlyMap<string, number>;
  /** The step runs of the round in progress, by node id. */
  readonly #inRound = new Map<string, RoundRun<S>>();
  /** Waiting steps of the round in progress that timed out (they emit their `onTimeout` label). */
  readonly #timedOut = new Set<string>();
  /** The round in progress, counting the rounds an earlier run completed. */
  #current = 0;
  #waiting: PendingStep[] = [];
  #paused = false;

  constructor(parts: RoundDriverParts<S>) {
    const { steps, recorder, resume } = parts;
    this.#parts = parts;
    this.#byName = new Map(steps.map((s) => [s.name, s]));
    this.#inputs = new StepInputs({
      steps,
      outputs: recorder.outputs,
      failures: recorder.failures,
      answers: parts.answers,
      forced: parts.forced,
    });
    this.#offset = resume?.rounds.length ?? 0;
    this.#doneBefore = new Set(resume?.done.map((d) => d.nodeId));
    for (const done of resume?.done ?? []) if (done.timedOut === true) this.#timedOut.add(done.nodeId);
    const deadlines = (resume?.pending ?? []).filter((p) => p.timeoutAt !== undefined);
    this.#deadlines = new Map(deadlines.map((p) => [p.nodeId, p.timeoutAt as number]));
  }

  startRound(flow: FlowRoundState, round: number, self: AnyActorRef): void {
    this.#current = flow.completed + 1;
    this.#inRound.clear();
    if (round > 1) this.#timedOut.clear();
    for (const entry of flow.scheduled) this.#startRun(entry, round, self);
  }

  stepDone(nodeId: string): void {
    const entry = this.#inRound.get(nodeId);
    if (entry === undefined) return;
    const completed = { nodeId, step: entry.step.name, run: entry.run, round: this.#current };
    this.#parts.onStepSettled?.(this.#timedOut.has(nodeId) ? { ...completed, timedOut: true } : completed);
  }

  stepFailed(_nodeId: string): void {
    this.#parts.onStepSettled?.(undefined);
  }

  retryNode(nodeId: string): void {
    this.#parts.runner.retry(nodeId);
  }

  roundClosed(round: number, flow: FlowRoundState): void {
    const { hub } = this.#parts;
    const closed = flow.closed ?? { steps: [], emitted: [] };
    hub.emit({
      type: 'flow.round',
      round: round + this.#offset,
      steps: closed.steps,
      emitted: closed.emitted,
    });
    const copy = () => ({ steps: [...closed.steps], emitted: [...closed.emitted] });
    if (flow.exceeded !== undefined) {
      this.#parts.onRoundCompleted?.(flow.completed, copy());
      this.#exceeded(flow.exceeded.step, flow.exceeded.maxRuns);
      return;
    }
    if (flow.failed) return;
    if (flow.waiting.length > 0) {
      // The round's waiting steps wait: the run pauses here, the round unfinished.
      this.#waiting = flow.waiting.map((w) => structuredClone(w));
      this.#paused = true;
      const waiting = this.#waiting.map((w) => w.step);
      hub.emit({ type: 'flow.paused', waiting, waitingFor: this.#waiting.map(waitingStepOf) });
      return;
    }
    this.#parts.onRoundCompleted?.(flow.completed, copy());
  }

  waiting(): PendingStep[] {
    return this.#paused ? this.#waiting.map((w) => structuredClone(w)) : [];
  }

  /**
   * Starts one scheduled step run of round `round`; a run that completed before the earlier run
   * stopped (`NODE.RESTORED`) or that waits for an answer (`STEP.WAITING`) is told to the machine.
   */
  #startRun(entry: ScheduledStep, round: number, self: AnyActorRef): void {
    const step = this.#byName.get(entry.step) as StepDefinition<S>;
    const nodeId = runNodeId(entry);
    this.#inRound.set(nodeId, { step, nodeId, run: entry.run });
    // Completed before the earlier run stopped: its output is recorded, it does not run again.
    if (round === 1 && this.#doneBefore.has(nodeId)) {
      const output = this.#parts.recorder.outputs.get(step.name);
      const label = chosenLabel(step, output, this.#timedOut.has(nodeId));
      self.send({ type: 'NODE.RESTORED', nodeId, label });
      return;
    }
    // Its crew waited for a human and got no answer: it waits on, without running.
    const crewWait = round === 1 ? this.#parts.crewWaits?.unanswered(nodeId) : undefined;
    if (crewWait !== undefined) {
      this.#waits(self, crewWait);
      return;
    }
    if (round === 1) this.#announceChild(nodeId);
    const payload = this.#inputs.payloadOf(entry.trigger);
    const waits = step.kind === 'human' || step.kind === 'wait';
    const runnable = waits ? this.#answered(step, entry.run, nodeId, round) : step;
    if (runnable === undefined) {
      this.#waits(self, this.#pendingOf(step, nodeId, payload));
      return;
    }
    const { retries, retryDelayMs } = runnable;
    const spec = { nodeId, maxAttempts: retries + 1, retryDelayMs, step: runnable, run: entry.run };
    const timedOut = this.#timedOut.has(nodeId);
    this.#parts.runner.start({ ...spec, payload, ...(timedOut ? { timedOut } : {}) }, self);
  }

  /**
   * A human or wait step's run as a step that returns its answer (or fails, for a timeout without an
   * `onTimeout` label); undefined when it has none yet: it is then one of the steps the round waits for.
   */
  #answered(
    step: StepDefinition<S>,
    run: number,
    nodeId: string,
    round: number,
  ): StepDefinition<S> | undefined {
    const { forced } = this.#parts;
    if (forced !== undefined && forcedOutcome(forced, step.name, run) === FAILED_OUTCOME) {
      return forcedStep(step, forced, run);
    }
    const answer = this.#inputs.answerFor(step, run, round);
    if (answer === undefined) return undefined;
    if (this.#parts.answers?.includes(answer) === true) this.#announce(answer);
    if (answer.kind === 'timeout') this.#timedOut.add(nodeId);
    const output = answerOutput(step, answer);
    return { ...step, routes: undefined, run: output };
  }

  /** Step run `pending.nodeId` waits for its answer without running: told as it (`node.waiting`), then to the machine. */
  #waits(self: AnyActorRef, pending: PendingStep): void {
    const { nodeId, step } = pending;
    this.#parts.hub.emit({
      type: 'node.waiting',
      nodeId,
      attempt: 0,
      waitingFor: waitingForStep(pending),
      step,
    });
    self.send({ type: 'STEP.WAITING', pending });
  }

  /** What a step waiting for `step`'s answer records: what it waits for, and until when. */
  #pendingOf(step: StepDefinition<S>, nodeId: string, payload: unknown): PendingStep {
    const timeoutAt =
      this.#deadlines.get(nodeId) ??
      (step.deadlineMs === undefined ? undefined : this.#parts.hub.now() + step.deadlineMs);
    const deadline = timeoutAt === undefined ? {} : { timeoutAt };
    if (step.kind === 'wait') {
      return { kind: 'event', step: step.name, nodeId, event: step.event ?? '', payload, ...deadline };
    }
    const prompt = this.#parts.promptOf?.(step, payload) ?? step.name;
    const routes = [...(step.routes ?? [])];
    return { kind: 'human', step: step.name, nodeId, prompt, routes, payload, ...deadline };
  }

  /** Tells that a paused run went on with `answer`. */
  #announce(answer: StepAnswer): void {
    const { hub } = this.#parts;
    if (answer.kind === 'human') hub.emit({ type: 'flow.resumed', step: answer.step, route: answer.route });
    else if (answer.kind === 'signal')
      hub.emit({ type: 'flow.signaled', step: answer.step, event: answer.event });
    else hub.emit({ type: 'flow.timed_out', step: answer.step });
  }

  /**
   * Tells that a paused run went on with an answer for the child flow of flow step run `nodeId`, as
   * for its own waits: `flow.resumed` (a human's route), `flow.signaled` or `flow.timed_out`, naming
   * the flow step (the child's own events name its step).
   */
  #announceChild(nodeId: string): void {
    const answer = this.#parts.answers?.find((a) => a.kind === 'flow' && a.nodeId === nodeId);
    if (answer?.kind !== 'flow') return;
    const { hub } = this.#parts;
    const { request, step } = answer;
    if (request.kind === 'signal') {
      hub.emit({ type: 'flow.signaled', step, event: request.event });
      return;
    }
    const given = request.answer as { route?: unknown } | undefined;
    if (given === undefined) hub.emit({ type: 'flow.timed_out', step });
    else if (typeof given.route === 'string') hub.emit({ type: 'flow.resumed', step, route: given.route });
  }

  /** Fails the run: `step` fired past its `maxRuns` (`max_runs`), reported as the run that did not start. */
  #exceeded(step: string, maxRuns: number): void {
    const error = new MaxRunsError(step, maxRuns);
    this.#parts.hub.emit({
      type: 'flow.step',
      name: step,
      nodeId: `${step}#${maxRuns + 1}`,
      run: maxRuns + 1,
      status: 'failed',
      error: error.message,
      code: error.code,
      retryable: false,
      details: error.details,
    });
  }
}

/** What a step that waits without running tells of it (its `node.waiting` event's `waitingFor`). */
function waitingForStep(pending: PendingStep): WaitingFor {
  const deadline = pending.timeoutAt === undefined ? {} : { timeoutAt: pending.timeoutAt };
  switch (pending.kind) {
    case 'human':
      return { kind: 'human', prompt: pending.prompt, routes: [...pending.routes], ...deadline };
    case 'event':
      return { kind: 'event', event: pending.event, ...deadline };
    case 'crew':
      return {
        kind: 'crew',
        crew: pending.crew,
        executionId: pending.executionId,
        pending: [...pending.pending],
      };
    case 'flow':
      return { kind: 'flow', flow: pending.flow, runId: pending.runId, path: pending.path, ...deadline };
  }
}
