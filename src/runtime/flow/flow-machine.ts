import { assign, enqueueActions, setup, stopChild } from 'xstate';
import { type AbortEvent, type NodeSettledEvent, willRetry } from '../../machines/settled.js';
import type { StepShape } from './definition.js';
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
import { type PendingStep, type SnapshotRound, stepRunOf } from './snapshot.js';

/** What the flow machine is built from: the flow's name and its steps in definition order. */
export interface FlowMachineDefinition {
  name: string;
  steps: readonly StepShape[];
}

/** What a run of the flow machine starts with: its run key, and the rounds an earlier run of it completed. */
export interface FlowMachineInput {
  run: string;
  resume?: readonly SnapshotRound[] | undefined;
}

/** The flow machine's context: the run — its round number, its round state — and why it crashed, if it did. */
export interface FlowContext {
  run: string;
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
  | { type: 'NODE.RESTORED'; nodeId: string }
  | { type: 'NODE.WAITING'; pending: PendingStep };

/** How the machine learns the outcome of a completed step run (a router's label…): the runtime's answer. */
export type OutcomeOf = (run: string, nodeId: string) => string | undefined;

/**
 * How the machine learns that a step run that failed for good waits instead (a crew it kicked off
 * paused for a human): what it waits for, the runtime's answer; undefined for a failure.
 */
export type WaitingOf = (run: string, nodeId: string) => PendingStep | undefined;

/** The runtime's answers the machine asks for: outcomes of completed runs, waits of failed ones. */
export interface FlowMachineQueries {
  outcomeOf: OutcomeOf;
  waitingOf: WaitingOf;
}

/** The machine's setup: its types, the runtime's effects (no-ops until provided) and its guards. */
function flowSetup() {
  return setup({
    types: {
      context: {} as FlowContext,
      input: {} as FlowMachineInput,
      events: {} as FlowEvent,
      output: {} as FlowMachineOutput,
    },
    actions: {
      startRound: (_, _params: { round: number }) => {},
      stepDone: (_, _params: { nodeId: string }) => {},
      stepFailed: (_, _params: { nodeId: string }) => {},
      retryNode: (_, _params: { nodeId: string }) => {},
      roundClosed: (_, _params: { round: number; flow: FlowRoundState }) => {},
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
function roundState(setupOf: FlowSetup, steps: FlowSteps, { outcomeOf, waitingOf }: FlowMachineQueries) {
  /** Step run `nodeId` completed (in this run, or before it): settled with the outcome it chose. */
  const completed = (context: FlowContext, nodeId: string) =>
    settleRun(context.flow, nodeId, outcomeOf(context.run, nodeId));
  return setupOf.createStateConfig({
    entry: { type: 'startRound', params: ({ context }) => ({ round: context.round }) },
    always: { guard: 'roundSettled', target: 'between' },
    on: {
      'NODE.COMPLETED': {
        actions: [
          stopChild(({ event }) => event.run),
          assign({
            flow: ({ context, event }) => completed(context, event.nodeId),
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
        // Its crew paused for a human: the step run waits (and runs again once answered).
        {
          guard: ({ context, event }) => waitingOf(context.run, event.nodeId) !== undefined,
          actions: [
            stopChild(({ event }) => event.run),
            assign({
              flow: ({ context, event }) =>
                waitFor(context.flow, waitingOf(context.run, event.nodeId) as PendingStep),
            }),
          ],
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
          flow: ({ context, event }) => completed(context, event.nodeId),
        }),
      },
      'NODE.WAITING': {
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
export function createFlowMachine(
  definition: FlowMachineDefinition,
  queries: FlowMachineQueries = { outcomeOf: () => undefined, waitingOf: () => undefined },
) {
  const steps: FlowSteps = {
    byName: new Map(definition.steps.map((s) => [s.name, s])),
    handled: handledSteps(definition.steps),
  };
  const setupOf = flowSetup();
  return setupOf.createMachine({
    id: definition.name,
    description: `Flow "${definition.name}" with steps ${definition.steps.map((s) => s.name).join(', ')}`,
    context: ({ input }) => ({
      run: input.run,
      round: 0,
      error: undefined,
      flow: initialRoundState(definition.steps, input.resume),
    }),
    initial: 'idle',
    on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
    states: {
      idle: { on: { START: { target: 'round', actions: assign({ round: 1 }) } } },
      round: roundState(setupOf, steps, queries),
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
