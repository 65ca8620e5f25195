import type { AnyActorRef } from 'xstate';
import { MaxRunsError } from '../../errors.js';
import type { EventHub } from '../engine/event-hub.js';
import type { LifecycleRunner } from '../engine/lifecycle-runner.js';
import type { StepDefinition } from './definition.js';
import type { FlowRecorder } from './recorder.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
import type { HumanAnswer, PendingHuman, SnapshotRound, SnapshotStepRun } from './snapshot.js';
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
  const { hub, recorder, runner, resume } = parts;
  const byName = new Map(parts.steps.map((s) => [s.name, s]));
  const rounds = new FlowRounds(parts.steps);
  let upcoming: ScheduledStep[] = [];
  let inRound: { step: StepDefinition<S>; nodeId: string; run: number }[] = [];
  const completedInRound = new Set<string>();
  const completedRounds: SnapshotRound[] = [];
  let pending = 0;
  let failed = false;
  /** Rounds an earlier run completed: this run's round numbers go on from them. */
  const offset = resume?.rounds.length ?? 0;

  /** The first round of this run: round 1, or — resuming — the round the earlier run was in. */
  const firstRound = (): ScheduledStep[] => {
    let scheduled = rounds.first();
    for (const round of resume?.rounds ?? []) {
      const outcome = rounds.next(round.emitted);
      scheduled = outcome.kind === 'next' ? outcome.steps : [];
    }
    return scheduled;
  };
  for (const round of resume?.rounds ?? []) {
    completedRounds.push({ steps: [...round.steps], emitted: [...round.emitted] });
  }
  /** The round in progress, counting the rounds an earlier run completed. */
  let current = 0;
  const doneBefore = new Set(resume?.done.map((d) => d.nodeId));
  /** Route label → the human step that declares it: listeners of the label get the human's answer. */
  const humanOfLabel = new Map<string, string>();
  for (const step of parts.steps) {
    if (step.kind === 'human') for (const label of step.routes ?? []) humanOfLabel.set(label, step.name);
  }
  let waiting: PendingHuman[] = [];
  let paused = false;

  /** The answer of a human step's run: the resumed run's answer, or a forced route. */
  const answerFor = (step: string, run: number, round: number): HumanAnswer | undefined => {
    const given = parts.answer;
    if (round === 1 && given !== undefined && given.step === step) return given;
    const choice = parts.forced?.get(step);
    const route = typeof choice === 'string' ? choice : choice?.[run - 1];
    return route === undefined ? undefined : { step, route, feedback: undefined };
  };

  const payloadOf = (trigger: string | undefined) => {
    if (trigger === undefined) return undefined;
    if (byName.has(trigger)) return recorder.outputs.get(trigger);
    const human = humanOfLabel.get(trigger);
    return human === undefined ? trigger : recorder.outputs.get(human);
  };

  const exceeded = (step: string, maxRuns: number) => {
    failed = true;
    const error = new MaxRunsError(step, maxRuns);
    hub.emit({
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
  };

  return {
    startRound(round: number, self: AnyActorRef) {
      const scheduled = round === 1 ? firstRound() : upcoming;
      waiting = [];
      current = round + offset;
      inRound = [];
      completedInRound.clear();
      for (const entry of scheduled) {
        const step = byName.get(entry.step) as StepDefinition<S>;
        const nodeId = runNodeId(entry);
        inRound.push({ step, nodeId, run: entry.run });
        // Completed before the earlier run stopped: its output is recorded, it does not run again.
        if (round === 1 && doneBefore.has(nodeId)) {
          completedInRound.add(nodeId);
          continue;
        }
        const payload = payloadOf(entry.trigger);
        let runnable = step;
        if (step.kind === 'human') {
          const answer = answerFor(step.name, entry.run, round);
          if (answer === undefined) {
            const prompt = parts.promptOf?.(step, payload) ?? step.name;
            waiting.push({ step: step.name, nodeId, prompt, routes: [...(step.routes ?? [])], payload });
            continue;
          }
          if (answer === parts.answer)
            hub.emit({ type: 'flow.resumed', step: step.name, route: answer.route });
          // The answer is the step's output; its route was checked against the routes already.
          const output = { route: answer.route, feedback: answer.feedback };
          runnable = { ...step, routes: undefined, run: () => output };
        }
        pending += 1;
        const spec = { nodeId, maxAttempts: 1, retryDelayMs: 0, step: runnable, run: entry.run };
        runner.start({ ...spec, payload }, self);
      }
    },
    recordDone(nodeId: string) {
      pending -= 1;
      completedInRound.add(nodeId);
      const entry = inRound.find((r) => r.nodeId === nodeId);
      if (entry !== undefined) {
        parts.onStepSettled?.({ nodeId, step: entry.step.name, run: entry.run, round: current });
      }
    },
    recordFailed() {
      pending -= 1;
      failed = true;
      parts.onStepSettled?.(undefined);
    },
    advance(round: number) {
      const done = inRound
        .filter((r) => completedInRound.has(r.nodeId))
        .sort((a, b) => a.step.index - b.step.index);
      const emitted: string[] = [];
      for (const { step } of done) {
        emitted.push(step.name);
        if (step.kind === 'router') emitted.push(String(recorder.outputs.get(step.name)));
        if (step.kind === 'human')
          emitted.push(String((recorder.outputs.get(step.name) as HumanAnswer).route));
      }
      const steps = done.map((d) => d.step.name);
      hub.emit({ type: 'flow.round', round: round + offset, steps, emitted });
      if (failed) return;
      if (waiting.length > 0) {
        // The round's human steps wait: the run pauses here, the round unfinished.
        paused = true;
        upcoming = [];
        hub.emit({ type: 'flow.paused', waiting: waiting.map((w) => w.step) });
        return;
      }
      completedRounds.push({ steps, emitted });
      parts.onRoundCompleted?.(completedRounds.length, { steps: [...steps], emitted: [...emitted] });
      inRound = [];
      completedInRound.clear();
      const outcome = rounds.next(emitted);
      if (outcome.kind === 'next') upcoming = outcome.steps;
      else exceeded(outcome.step, outcome.maxRuns);
    },
    roundSettled: () => pending === 0,
    waiting: () => (paused ? waiting.map((w) => ({ ...w, routes: [...w.routes] })) : []),

    hasFailed: () => failed,
    hasRound: () => upcoming.length > 0,
  };
}
