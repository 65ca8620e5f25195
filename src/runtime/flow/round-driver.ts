import type { AnyActorRef } from 'xstate';
import { MaxRunsError, StepTimeoutError } from '../../errors.js';
import type { EventHub } from '../engine/event-hub.js';
import type { LifecycleRunner } from '../engine/lifecycle-runner.js';
import type { StepDefinition } from './definition.js';
import { forcedOutcome, forcedStep } from './forced-routes.js';
import { emissionOf, FAILED_OUTCOME } from './outcomes.js';
import type { FlowRecorder } from './recorder.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
import {
  type HumanAnswer,
  type PendingStep,
  type SnapshotRound,
  type SnapshotStepRun,
  type StepAnswer,
  waitingStepOf,
} from './snapshot.js';
import { StepInputs } from './step-inputs.js';
import type { StepRunSpec } from './step-runner.js';
import type { FlowHandlers } from './supervisor.js';

const runNodeId = (scheduled: ScheduledStep) =>
  scheduled.run === 1 ? scheduled.step : `${scheduled.step}#${scheduled.run}`;

/** What the round driver works with. */
export interface RoundDriverParts<S> {
  steps: readonly StepDefinition<S>[];
  hub: EventHub;
  recorder: FlowRecorder;
  runner: LifecycleRunner<StepRunSpec<S>>;
  /**
   * Where an earlier run of this flow run stopped: its completed rounds, the step runs done since, and
   * the steps it waited for (their deadlines hold).
   */
  resume?:
    | { rounds: readonly SnapshotRound[]; done: readonly SnapshotStepRun[]; pending?: readonly PendingStep[] }
    | undefined;
  /** The answers a resumed paused run was given, for its waiting steps. */
  answers?: readonly StepAnswer[] | undefined;
  /** The steps whose failure some `failed(...)` trigger handles: their failure does not fail the run. */
  handled: ReadonlySet<string>;
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
}

/** A flow run's round handlers, and the steps it waits for. */
export interface RoundDriver extends FlowHandlers {
  /** The human and wait steps the run waits for (empty unless it paused). */
  waiting(): PendingStep[];
}

/**
 * The handlers a flow's supervisor calls: start a round's step runs, count what settles, and once the
 * round settled, decide the next round from what it emitted (the round semantics of `FlowRounds`).
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

/** How the runs of a round settled: those completed (with a timeout, for waiting steps), those whose failure is handled. */
interface RoundSettlement {
  completed: ReadonlySet<string>;
  failedHandled: ReadonlySet<string>;
  timedOut: ReadonlySet<string>;
}

/** The outcome a completed run chose: a router's label, a human's route, a timeout's label; else none. */
function outcomeOf<S>(
  run: RoundRun<S>,
  timedOut: ReadonlySet<string>,
  outputs: ReadonlyMap<string, unknown>,
) {
  const { step } = run;
  if (timedOut.has(run.nodeId)) return step.onTimeout;
  if (step.kind === 'router') return String(outputs.get(step.name));
  if (step.kind === 'human') return String((outputs.get(step.name) as HumanAnswer).route);
  return undefined;
}

/**
 * What a settled round's runs emitted, in definition order (`emissionOf`: a step's name, then its
 * route; a timeout's label; `failed(<step>)` for a handled failure), and the steps that completed.
 */
function roundRecord<S>(
  runs: readonly RoundRun<S>[],
  settled: RoundSettlement,
  outputs: ReadonlyMap<string, unknown>,
): SnapshotRound {
  const sorted = [...runs].sort((a, b) => a.step.index - b.step.index);
  const steps: string[] = [];
  const emitted: string[] = [];
  for (const run of sorted) {
    const handled = settled.failedHandled.has(run.nodeId);
    if (!handled && !settled.completed.has(run.nodeId)) continue;
    const outcome = handled ? FAILED_OUTCOME : outcomeOf(run, settled.timedOut, outputs);
    const emission = emissionOf(run.step, outcome);
    if (emission.completed) steps.push(run.step.name);
    emitted.push(...emission.emitted);
  }
  return { steps, emitted };
}

/**
 * The round bookkeeping of one flow run, all of it here: the round in progress (its runs, what
 * completed, what is still pending, the human steps waiting) and what comes next.
 */
class FlowRoundDriver<S> implements RoundDriver {
  readonly #parts: RoundDriverParts<S>;
  readonly #byName: ReadonlyMap<string, StepDefinition<S>>;
  readonly #rounds: FlowRounds;
  readonly #inputs: StepInputs<S>;
  /** Rounds an earlier run completed: this run's round numbers go on from them. */
  readonly #offset: number;
  /** Step runs an earlier run completed in the round it stopped in: they do not run again. */
  readonly #doneBefore: ReadonlySet<string>;
  /** The deadlines of the steps an earlier run waited for, by node id: they hold. */
  readonly #deadlines: ReadonlyMap<string, number>;
  #upcoming: ScheduledStep[] = [];
  #inRound: RoundRun<S>[] = [];
  readonly #completedInRound = new Set<string>();
  readonly #failedHandled = new Set<string>();
  /** Waiting steps of the round in progress that timed out (they emit their `onTimeout` label). */
  readonly #timedOut = new Set<string>();
  /** Rounds completed, counting the rounds an earlier run completed. */
  #completedRounds: number;
  /** The round in progress, counting the rounds an earlier run completed. */
  #current = 0;
  #pending = 0;
  #failed = false;
  #waiting: PendingStep[] = [];
  #paused = false;

  constructor(parts: RoundDriverParts<S>) {
    const { steps, recorder, resume } = parts;
    this.#parts = parts;
    this.#byName = new Map(steps.map((s) => [s.name, s]));
    this.#rounds = new FlowRounds(steps);
    this.#inputs = new StepInputs({
      steps,
      outputs: recorder.outputs,
      failures: recorder.failures,
      answers: parts.answers,
      forced: parts.forced,
    });
    this.#offset = resume?.rounds.length ?? 0;
    this.#completedRounds = this.#offset;
    this.#doneBefore = new Set(resume?.done.map((d) => d.nodeId));
    for (const done of resume?.done ?? []) if (done.timedOut === true) this.#timedOut.add(done.nodeId);
    const deadlines = (resume?.pending ?? []).filter((p) => p.timeoutAt !== undefined);
    this.#deadlines = new Map(deadlines.map((p) => [p.nodeId, p.timeoutAt as number]));
  }

  startRound(round: number, self: AnyActorRef): void {
    const scheduled = round === 1 ? this.#firstRound() : this.#upcoming;
    this.#waiting = [];
    this.#current = round + this.#offset;
    this.#inRound = [];
    this.#completedInRound.clear();
    this.#failedHandled.clear();
    if (round > 1) this.#timedOut.clear();
    for (const entry of scheduled) this.#startRun(entry, round, self);
  }

  recordDone(nodeId: string): void {
    this.#pending -= 1;
    this.#completedInRound.add(nodeId);
    const entry = this.#inRound.find((r) => r.nodeId === nodeId);
    if (entry !== undefined) {
      const completed = { nodeId, step: entry.step.name, run: entry.run, round: this.#current };
      this.#parts.onStepSettled?.(this.#timedOut.has(nodeId) ? { ...completed, timedOut: true } : completed);
    }
  }

  recordFailed(nodeId: string): void {
    this.#pending -= 1;
    const entry = this.#inRound.find((r) => r.nodeId === nodeId);
    // A failure some `failed(...)` trigger names is handled: the round goes on and emits it.
    if (entry !== undefined && this.#parts.handled.has(entry.step.name)) this.#failedHandled.add(nodeId);
    else this.#failed = true;
    this.#parts.onStepSettled?.(undefined);
  }

  retryNode(nodeId: string): void {
    this.#parts.runner.retry(nodeId);
  }

  advance(round: number): void {
    const settled = {
      completed: this.#completedInRound,
      failedHandled: this.#failedHandled,
      timedOut: this.#timedOut,
    };
    const { steps, emitted } = roundRecord(this.#inRound, settled, this.#parts.recorder.outputs);
    this.#parts.hub.emit({ type: 'flow.round', round: round + this.#offset, steps, emitted });
    if (this.#failed) return;
    // The round's waiting steps wait: the run pauses here, the round unfinished.
    if (this.#waiting.length > 0) this.#pause();
    else this.#completeRound(steps, emitted);
  }

  roundSettled(): boolean {
    return this.#pending === 0;
  }

  waiting(): PendingStep[] {
    return this.#paused ? this.#waiting.map((w) => structuredClone(w)) : [];
  }

  hasFailed(): boolean {
    return this.#failed;
  }

  hasRound(): boolean {
    return this.#upcoming.length > 0;
  }

  /** The first round of this run: round 1, or — resuming — the round the earlier run was in. */
  #firstRound(): ScheduledStep[] {
    let scheduled = this.#rounds.first();
    for (const round of this.#parts.resume?.rounds ?? []) {
      const outcome = this.#rounds.next(round.emitted);
      scheduled = outcome.kind === 'next' ? outcome.steps : [];
    }
    return scheduled;
  }

  /** Starts one scheduled step run of round `round`, unless it completed before or it waits. */
  #startRun(entry: ScheduledStep, round: number, self: AnyActorRef): void {
    const step = this.#byName.get(entry.step) as StepDefinition<S>;
    const nodeId = runNodeId(entry);
    this.#inRound.push({ step, nodeId, run: entry.run });
    // Completed before the earlier run stopped: its output is recorded, it does not run again.
    if (round === 1 && this.#doneBefore.has(nodeId)) {
      this.#completedInRound.add(nodeId);
      return;
    }
    const payload = this.#inputs.payloadOf(entry.trigger);
    const waits = step.kind === 'human' || step.kind === 'wait';
    const runnable = waits ? this.#answered(step, entry.run, nodeId, payload, round) : step;
    if (runnable === undefined) return;
    this.#pending += 1;
    const { retries, retryDelayMs } = runnable;
    const spec = { nodeId, maxAttempts: retries + 1, retryDelayMs, step: runnable, run: entry.run };
    this.#parts.runner.start({ ...spec, payload }, self);
  }

  /**
   * A human or wait step's run as a step that returns its answer (or fails, for a timeout without an
   * `onTimeout` label); undefined when it has none yet: it is then one of the steps the round waits for.
   */
  #answered(
    step: StepDefinition<S>,
    run: number,
    nodeId: string,
    payload: unknown,
    round: number,
  ): StepDefinition<S> | undefined {
    const { forced } = this.#parts;
    if (forced !== undefined && forcedOutcome(forced, step.name, run) === FAILED_OUTCOME) {
      return forcedStep(step, forced, run);
    }
    const answer = this.#inputs.answerFor(step, run, round);
    if (answer === undefined) {
      this.#waiting.push(this.#pendingOf(step, nodeId, payload));
      return undefined;
    }
    if (this.#parts.answers?.includes(answer) === true) this.#announce(answer);
    if (answer.kind === 'timeout') this.#timedOut.add(nodeId);
    const output = answerOutput(step, answer);
    return { ...step, routes: undefined, run: output };
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

  #pause(): void {
    this.#paused = true;
    this.#upcoming = [];
    const waiting = this.#waiting.map((w) => w.step);
    this.#parts.hub.emit({ type: 'flow.paused', waiting, waitingFor: this.#waiting.map(waitingStepOf) });
  }

  /** Records a completed round and schedules the next one from what it emitted. */
  #completeRound(steps: string[], emitted: string[]): void {
    this.#completedRounds += 1;
    this.#parts.onRoundCompleted?.(this.#completedRounds, { steps: [...steps], emitted: [...emitted] });
    this.#inRound = [];
    this.#completedInRound.clear();
    const outcome = this.#rounds.next(emitted);
    if (outcome.kind === 'next') this.#upcoming = outcome.steps;
    else this.#exceeded(outcome.step, outcome.maxRuns);
  }

  /** Fails the run: `step` fired past its `maxRuns` (`max_runs`), reported as the run that did not start. */
  #exceeded(step: string, maxRuns: number): void {
    this.#failed = true;
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
