import type { AnyActorRef } from 'xstate';
import { RunRegistry } from '../engine/run-registry.js';
import type { StepShape } from './definition.js';
import { createFlowMachine } from './flow-machine.js';
import type { FlowRoundState } from './round-state.js';
import type { PendingStep } from './snapshot.js';

/**
 * What one flow run does for its machine besides the round state the machine keeps: start a round's
 * step runs, publish and store what settled, and tell the outcome of a completed step run.
 */
export interface FlowHandlers {
  /** Starts the step runs of round `round` (from 1), or tells the machine which completed before or wait. */
  startRound(flow: FlowRoundState, round: number, self: AnyActorRef): void;
  /** Step run `nodeId` completed (its result is recorded). */
  stepDone(nodeId: string): void;
  /** Step run `nodeId` failed for good. */
  stepFailed(nodeId: string): void;
  /** Tries a failed attempt of step run `nodeId` again, after its backoff. */
  retryNode(nodeId: string): void;
  /** Round `round` closed (`flow.closed`): publish it, store it, pause or fail as the machine decided. */
  roundClosed(round: number, flow: FlowRoundState): void;
  /** The outcome of completed step run `nodeId`: a router's label, a human's route, a timeout's label. */
  outcomeOf(nodeId: string): string | undefined;
  /** What step run `nodeId`, which failed, waits for instead: a crew of it paused for a human. */
  waitingOf(nodeId: string): PendingStep | undefined;
}

/** The handlers of every flow run in progress, by run key. */
export const flowRuns = new RunRegistry<FlowHandlers>();

/**
 * A flow's machine with the runtime's effects provided once: they find their run's handlers by the
 * run key in the context. Build it once per definition (`provide` rebuilds the whole machine, about
 * the cost of a small run).
 */
export function createFlowSupervisor(definition: { name: string; steps: readonly StepShape[] }) {
  const outcomeOf = (run: string, nodeId: string) => flowRuns.get(run).outcomeOf(nodeId);
  const waitingOf = (run: string, nodeId: string) => flowRuns.get(run).waitingOf(nodeId);
  return createFlowMachine(definition, { outcomeOf, waitingOf }).provide({
    actions: {
      startRound: ({ context, self }, { round }) =>
        flowRuns.get(context.run).startRound(context.flow, round, self),
      stepDone: ({ context }, { nodeId }) => flowRuns.get(context.run).stepDone(nodeId),
      stepFailed: ({ context }, { nodeId }) => flowRuns.get(context.run).stepFailed(nodeId),
      retryNode: ({ context }, { nodeId }) => flowRuns.get(context.run).retryNode(nodeId),
      roundClosed: ({ context }, { round, flow }) => flowRuns.get(context.run).roundClosed(round, flow),
    },
  });
}

/** A flow's supervisor, as `createFlowSupervisor` builds it. */
export type FlowSupervisor = ReturnType<typeof createFlowSupervisor>;
