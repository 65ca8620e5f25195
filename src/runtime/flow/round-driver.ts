import type { AnyActorRef } from 'xstate';
import { MaxRunsError } from '../../errors.js';
import type { EventHub } from '../event-hub.js';
import type { LifecycleRunner } from '../lifecycle-runner.js';
import type { StepDefinition } from './definition.js';
import type { FlowRecorder } from './recorder.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
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
}

/**
 * The handlers a flow's supervisor calls: start a round's step runs, count what settles, and once the
 * round settled, decide the next round from what it emitted (the round semantics of `FlowRounds`).
 */
export function createRoundDriver<S>(parts: RoundDriverParts<S>): FlowHandlers {
  const { hub, recorder, runner } = parts;
  const byName = new Map(parts.steps.map((s) => [s.name, s]));
  const rounds = new FlowRounds(parts.steps);
  let upcoming: ScheduledStep[] = [];
  let inRound: { step: StepDefinition<S>; nodeId: string }[] = [];
  const completedInRound = new Set<string>();
  let pending = 0;
  let failed = false;

  const payloadOf = (trigger: string | undefined) =>
    trigger === undefined ? undefined : byName.has(trigger) ? recorder.outputs.get(trigger) : trigger;

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
      const scheduled = round === 1 ? rounds.first() : upcoming;
      inRound = [];
      completedInRound.clear();
      for (const entry of scheduled) {
        const step = byName.get(entry.step) as StepDefinition<S>;
        const nodeId = runNodeId(entry);
        inRound.push({ step, nodeId });
        pending += 1;
        const spec = { nodeId, maxAttempts: 1, retryDelayMs: 0, step, run: entry.run };
        runner.start({ ...spec, payload: payloadOf(entry.trigger) }, self);
      }
    },
    recordDone(nodeId: string) {
      pending -= 1;
      completedInRound.add(nodeId);
    },
    recordFailed() {
      pending -= 1;
      failed = true;
    },
    advance(round: number) {
      const done = inRound
        .filter((r) => completedInRound.has(r.nodeId))
        .sort((a, b) => a.step.index - b.step.index);
      const emitted: string[] = [];
      for (const { step } of done) {
        emitted.push(step.name);
        if (step.kind === 'router') emitted.push(String(recorder.outputs.get(step.name)));
      }
      hub.emit({ type: 'flow.round', round, steps: done.map((d) => d.step.name), emitted });
      if (failed) return;
      const outcome = rounds.next(emitted);
      if (outcome.kind === 'next') upcoming = outcome.steps;
      else exceeded(outcome.step, outcome.maxRuns);
    },
    roundSettled: () => pending === 0,
    hasFailed: () => failed,
    hasRound: () => upcoming.length > 0,
  };
}
