import type { AnyActorRef } from 'xstate';
import { MaxRunsError } from '../../errors.js';
import type { EventHub } from '../engine/event-hub.js';
import type { LifecycleRunner } from '../engine/lifecycle-runner.js';
import type { StepDefinition } from './definition.js';
import type { FlowRecorder } from './recorder.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
import type { HumanAnswer, PendingHuman, SnapshotRound, SnapshotStepRun } from './snapshot.js';
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
  /** Where an earlier run of this flow run stopped: its completed rounds and the step runs done since. */
  resume?: { rounds: readonly SnapshotRound[]; done: readonly SnapshotStepRun[] } | undefined;
  /** The answer a resumed paused run was given, for one of its waiting human steps. */
  answer?: HumanAnswer | undefined;
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

/** A flow run's round handlers, and the human steps it waits for. */
export interface RoundDriver extends FlowHandlers {
  /** The human steps the run waits for (empty unless it paused). */
  waiting(): PendingHuman[];
}

/**
 * The handlers a flow's supervisor calls: start a round's step runs, count what settles, and once the
 * round settled, decide the next round from what it emitted (the round semantics of `FlowRounds`).
 */
export function createRoundDriver<S>(parts: RoundDriverParts<S>): RoundDriver {
  return new FlowRoundDriver(parts);
}

/** One step run of the round in progress. */
interface RoundRun<S> {
  step: StepDefinition<S>;
  nodeId: string;
  run: number;
}

/** What a settled round's completed runs emitted, in definition order: a step's name, then its route. */
function roundRecord<S>(
  runs: readonly RoundRun<S>[],
  completed: ReadonlySet<string>,
  outputs: ReadonlyMap<string, unknown>,
): SnapshotRound {
  const done = runs.filter((r) => completed.has(r.nodeId)).sort((a, b) => a.step.index - b.step.index);
  const emitted: string[] = [];
  for (const { step } of done) {
    emitted.push(step.name);
    if (step.kind === 'router') emitted.push(String(outputs.get(step.name)));
    if (step.kind === 'human') emitted.push(String((outputs.get(step.name) as HumanAnswer).route));
  }
  return { steps: done.map((d) => d.step.name), emitted };
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
  #upcoming: ScheduledStep[] = [];
  #inRound: RoundRun<S>[] = [];
  readonly #completedInRound = new Set<string>();
  /** Rounds completed, counting the rounds an earlier run completed. */
  #completedRounds: number;
  /** The round in progress, counting the rounds an earlier run completed. */
  #current = 0;
  #pending = 0;
  #failed = false;
  #waiting: PendingHuman[] = [];
  #paused = false;

  constructor(parts: RoundDriverParts<S>) {
    const { steps, recorder, resume } = parts;
    this.#parts = parts;
    this.#byName = new Map(steps.map((s) => [s.name, s]));
    this.#rounds = new FlowRounds(steps);
    this.#inputs = new StepInputs({
      steps,
      outputs: recorder.outputs,
      answer: parts.answer,
      forced: parts.forced,
    });
    this.#offset = resume?.rounds.length ?? 0;
    this.#completedRounds = this.#offset;
    this.#doneBefore = new Set(resume?.done.map((d) => d.nodeId));
  }

  startRound(round: number, self: AnyActorRef): void {
    const scheduled = round === 1 ? this.#firstRound() : this.#upcoming;
    this.#waiting = [];
    this.#current = round + this.#offset;
    this.#inRound = [];
    this.#completedInRound.clear();
    for (const entry of scheduled) this.#startRun(entry, round, self);
  }

  recordDone(nodeId: string): void {
    this.#pending -= 1;
    this.#completedInRound.add(nodeId);
    const entry = this.#inRound.find((r) => r.nodeId === nodeId);
    if (entry !== undefined) {
      const completed = { nodeId, step: entry.step.name, run: entry.run, round: this.#current };
      this.#parts.onStepSettled?.(completed);
    }
  }

  recordFailed(): void {
    this.#pending -= 1;
    this.#failed = true;
    this.#parts.onStepSettled?.(undefined);
  }

  retryNode(nodeId: string): void {
    this.#parts.runner.retry(nodeId);
  }

  advance(round: number): void {
    const { steps, emitted } = roundRecord(
      this.#inRound,
      this.#completedInRound,
      this.#parts.recorder.outputs,
    );
    this.#parts.hub.emit({ type: 'flow.round', round: round + this.#offset, steps, emitted });
    if (this.#failed) return;
    // The round's human steps wait: the run pauses here, the round unfinished.
    if (this.#waiting.length > 0) this.#pause();
    else this.#completeRound(steps, emitted);
  }

  roundSettled(): boolean {
    return this.#pending === 0;
  }

  waiting(): PendingHuman[] {
    return this.#paused ? this.#waiting.map((w) => ({ ...w, routes: [...w.routes] })) : [];
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

  /** Starts one scheduled step run of round `round`, unless it completed before or it waits for a human. */
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
    const runnable = step.kind === 'human' ? this.#answered(step, entry.run, nodeId, payload, round) : step;
    if (runnable === undefined) return;
    this.#pending += 1;
    const { retries, retryDelayMs } = runnable;
    const spec = { nodeId, maxAttempts: retries + 1, retryDelayMs, step: runnable, run: entry.run };
    this.#parts.runner.start({ ...spec, payload }, self);
  }

  /**
   * A human step's run as a step that returns its answer; undefined when it has none yet: it is then
   * one of the steps the round waits for.
   */
  #answered(
    step: StepDefinition<S>,
    run: number,
    nodeId: string,
    payload: unknown,
    round: number,
  ): StepDefinition<S> | undefined {
    const answer = this.#inputs.answerFor(step.name, run, round);
    if (answer === undefined) {
      const prompt = this.#parts.promptOf?.(step, payload) ?? step.name;
      this.#waiting.push({ step: step.name, nodeId, prompt, routes: [...(step.routes ?? [])], payload });
      return undefined;
    }
    if (answer === this.#parts.answer)
      this.#parts.hub.emit({ type: 'flow.resumed', step: step.name, route: answer.route });
    // The answer is the step's output; its route was checked against the routes already.
    const output = { route: answer.route, feedback: answer.feedback };
    return { ...step, routes: undefined, run: () => output };
  }

  #pause(): void {
    this.#paused = true;
    this.#upcoming = [];
    this.#parts.hub.emit({ type: 'flow.paused', waiting: this.#waiting.map((w) => w.step) });
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
