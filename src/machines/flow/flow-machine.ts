import { type AnyActorRef, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeSettledEvent } from '../lifecycle.js';
import { type RetryEffects, type WithEffects, willRetry } from '../settled.js';
import { handledSteps } from './outcomes.js';
import {
  closeRound,
  exploreRound,
  type FlowRoundState,
  type FlowSteps,
  failRun,
  initialRoundState,
  paused,
  roundSettled,
  settleRun,
  waitFor,
} from './round-state.js';
import type { StepShape } from './step-shape.js';
import { type PendingStep, type SnapshotRound, stepRunOf } from './waits.js';

/** What the flow machine is built from: the flow's name and its steps in definition order. */
export interface FlowMachineDefinition {
  name: string;
  steps: readonly StepShape[];
}

/** What the flow machine asks of its run: start a round's step runs, publish and store what settled. */
export interface FlowEffects extends RetryEffects {
  /**
   * Starts the step runs of round `round` (from 1) under `supervisor`, or tells it which completed
   * before (`NODE.RESTORED`) or wait (`NODE.WAITING`).
   */
  startRound(flow: FlowRoundState, round: number, supervisor: AnyActorRef): void;
  /** Step run `nodeId` completed (its result is recorded). */
  stepDone(nodeId: string): void;
  /** Step run `nodeId` failed for good. */
  stepFailed(nodeId: string): void;
  /** Round `round` closed (`flow.closed`): publish it, store it, pause or fail as the machine decided. */
  roundClosed(round: number, flow: FlowRoundState): void;
}

/** Effects that do nothing: the machine as analysis walks it (`@xstate/graph` runs no action anyway). */
export const NO_FLOW_EFFECTS: FlowEffects = {
  startRound: () => {},
  stepDone: () => {},
  stepFailed: () => {},
  retryNode: () => {},
  roundClosed: () => {},
};

/** What a run of the flow machine starts with: its effects, and the rounds an earlier run of it completed. */
export interface FlowMachineInput extends WithEffects<FlowEffects> {
  resume?: readonly SnapshotRound[] | undefined;
}

/** The flow machine's context: the run — its round number, its round state — and why it crashed, if it did. */
export interface FlowContext extends WithEffects<FlowEffects> {
  round: number;
  error: unknown;
  flow: FlowRoundState;
}

/** Output of the flow machine. */
export interface FlowMachineOutput {
  rounds: number;
  error: unknown;
}

/** Analysis settles a whole round at once: the outcome each step of it that chooses one settles with. */
export interface RoundEvent {
  type: 'ROUND';
  labels: Record<string, string>;
}

/**
 * Events of the flow machine: its step runs settling; a step run of a resumed round that completed
 * before (`NODE.RESTORED`) or that waits (`NODE.WAITING`); analysis's `ROUND`; `START` and `ABORT`.
 */
export type FlowEvent =
  | NodeSettledEvent
  | AbortEvent
  | RoundEvent
  | { type: 'START' }
  | { type: 'NODE.RESTORED'; nodeId: string; label: string | undefined }
  | { type: 'STEP.WAITING'; pending: PendingStep };

/** The machine's setup: its types, the actions that call its run's effects, and its guards. */
function flowSetup() {
  return setup({
    types: {
      context: {} as FlowContext,
      input: {} as FlowMachineInput,
      events: {} as FlowEvent,
      output: {} as FlowMachineOutput,
    },
    actions: {
      startRound: ({ context, self }, { round }: { round: number }) =>
        context.effects.startRound(context.flow, round, self),
      stepDone: ({ context }, { nodeId }: { nodeId: string }) => context.effects.stepDone(nodeId),
      stepFailed: ({ context }, { nodeId }: { nodeId: string }) => context.effects.stepFailed(nodeId),
      retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
      roundClosed: ({ context }, { round, flow }: { round: number; flow: FlowRoundState }) =>
        context.effects.roundClosed(round, flow),
      stopRuns: enqueueActions(({ event, enqueue }) => {
        if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
      }),
    },
    guards: {
      roundSettled: ({ context }) => roundSettled(context.flow),
      hasFailed: ({ context }) => context.flow.failed,
      isPaused: ({ context }) => paused(context.flow),
      hasRound: ({ context }) => context.flow.scheduled.length > 0,
      willRetry,
    },
  });
}

type FlowSetup = ReturnType<typeof flowSetup>;

/**
 * The round in progress: its runs start on entry (the runtime's `startRound`); each settles
 * (`NODE.COMPLETED`, `NODE.FAILED` once its retries are spent, `NODE.RESTORED` for a run an earlier
 * run completed, `NODE.WAITING` for a step that waits) until every run is accounted for.
 */
function roundState(setupOf: FlowSetup, steps: FlowSteps) {
  return setupOf.createStateConfig({
    entry: { type: 'startRound', params: ({ context }) => ({ round: context.round }) },
    always: { guard: 'roundSettled', target: 'between' },
    on: {
      'NODE.COMPLETED': {
        actions: [
          stopChild(({ event }) => event.run),
          assign({
            flow: ({ context, event }) => settleRun(context.flow, event.nodeId, event.label),
          }),
          { type: 'stepDone', params: ({ event }) => ({ nodeId: event.nodeId }) },
        ],
      },
      'NODE.FAILED': [
        // An attempt failed and the step has retries left: the same run tries again.
        {
          guard: 'willRetry',
          actions: { type: 'retryNode', params: ({ event }) => ({ nodeId: event.nodeId }) },
        },
        {
          actions: [
            stopChild(({ event }) => event.run),
            assign({
              flow: ({ context, event }) =>
                failRun(context.flow, steps, event.nodeId, stepRunOf(event.nodeId).step),
            }),
            { type: 'stepFailed', params: ({ event }) => ({ nodeId: event.nodeId }) },
          ],
        },
      ],
      'NODE.RESTORED': {
        actions: assign({
          flow: ({ context, event }) => settleRun(context.flow, event.nodeId, event.label),
        }),
      },
      // A step run waits: a crew it kicked off paused for a human (the step runs again once
      // answered); a sleep's work goes on, and it completes at its wake time.
      'NODE.WAITING': {
        guard: ({ event }) => event.waiting.waitingFor.kind !== 'sleep',
        actions: [
          stopChild(({ event }) => event.run),
          assign({
            // What a step run's wait keeps is what the paused run waits for.
            flow: ({ context, event }) => waitFor(context.flow, event.waiting.keep as PendingStep),
          }),
        ],
      },
      // A human or wait step of the round waits for its answer, without running.
      'STEP.WAITING': {
        actions: assign({ flow: ({ context, event }) => waitFor(context.flow, event.pending) }),
      },
      // Analysis: the round settled at once and closed in one microstep, staying in `round` (a
      // round left empty settles at once: `between` ends the run, done or failed).
      ROUND: {
        actions: assign({
          flow: ({ context, event }) => exploreRound(context.flow, steps, event.labels),
          round: ({ context }) => context.round + 1,
        }),
      },
      'xstate.error.actor.*': { target: 'crashed', actions: assign({ error: ({ event }) => event.error }) },
    },
  });
}

/** Between rounds: the settled round closes (`closeRound`), and the next state is chosen from it. */
function betweenState(setupOf: FlowSetup, steps: FlowSteps) {
  return setupOf.createStateConfig({
    entry: [
      assign({ flow: ({ context }) => closeRound(context.flow, steps) }),
      { type: 'roundClosed', params: ({ context }) => ({ round: context.round, flow: context.flow }) },
    ],
    always: [
      { guard: 'hasFailed', target: 'failed' },
      { guard: 'isPaused', target: 'paused' },
      { guard: 'hasRound', target: 'round', actions: assign({ round: ({ context }) => context.round + 1 }) },
      { target: 'done' },
    ],
  });
}

/**
 * The flow's one machine: it runs the flow (with the runtime's effects provided: `startRound` starts
 * the round's step runs, `stepDone`/`stepFailed`/`roundClosed` publish and store) and it is what
 * analysis explores (`ROUND` settles and closes a round at once; `@xstate/graph` walks it). Its
 * context holds the run's round state (`FlowRoundState`: emissions, runs per step, the round in
 * progress, failures, waiting steps and their deadlines); its guards read it. `START` runs round
 * after round — each settles, closes (`closeRound`), and the next is chosen — until a round is empty
 * (`done`), a step failed unhandled or past its `maxRuns` (`failed`), or steps wait (`paused`).
 */
export function createFlowMachine(definition: FlowMachineDefinition) {
  const steps: FlowSteps = {
    byName: new Map(definition.steps.map((s) => [s.name, s])),
    handled: handledSteps(definition.steps),
  };
  const setupOf = flowSetup();
  return setupOf.createMachine({
    id: definition.name,
    description: `Flow "${definition.name}" with steps ${definition.steps.map((s) => s.name).join(', ')}`,
    context: ({ input }) => ({
      effects: input.effects,
      round: 0,
      error: undefined,
      flow: initialRoundState(definition.steps, input.resume),
    }),
    initial: 'idle',
    on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
    states: {
      idle: { on: { START: { target: 'round', actions: assign({ round: 1 }) } } },
      round: roundState(setupOf, steps),
      between: betweenState(setupOf, steps),
      done: { type: 'final' },
      failed: { type: 'final' },
      paused: { type: 'final' },
      aborted: { type: 'final' },
      crashed: { type: 'final' },
    },
    output: ({ context }) => ({ rounds: context.round, error: context.error }),
  });
}

/** The flow machine's type. */
export type FlowMachine = ReturnType<typeof createFlowMachine>;
