import type { AnyActorRef } from 'xstate';
import { createFlowMachine } from '../../machines/flow.js';
import { RunRegistry } from '../engine/run-registry.js';

/** What one flow run does for its supervisor: start rounds, count what settles, decide the next round. */
export interface FlowHandlers {
  startRound(round: number, self: AnyActorRef): void;
  recordDone(nodeId: string): void;
  /** Step run `nodeId` failed for good: its failure fails the run unless a `failed(...)` trigger handles it. */
  recordFailed(nodeId: string): void;
  /** Tries a failed attempt of step run `nodeId` again, after its backoff. */
  retryNode(nodeId: string): void;
  advance(round: number): void;
  roundSettled(): boolean;
  hasFailed(): boolean;
  hasRound(): boolean;
}

/** The handlers of every flow run in progress, by run key. */
export const flowRuns = new RunRegistry<FlowHandlers>();

/**
 * A flow's supervisor with its implementations provided once: they find their run's round
 * bookkeeping by the run key in the context. Build it once per definition (`provide` rebuilds the
 * whole machine, about the cost of a small run).
 */
export function createFlowSupervisor(definition: { name: string; steps: readonly { name: string }[] }) {
  return createFlowMachine({ name: definition.name, steps: definition.steps.map((s) => s.name) }).provide({
    actions: {
      startRound: ({ context, self }, { round }) => flowRuns.get(context.run).startRound(round, self),
      recordDone: ({ context }, { nodeId }) => flowRuns.get(context.run).recordDone(nodeId),
      recordFailed: ({ context }, { nodeId }) => flowRuns.get(context.run).recordFailed(nodeId),
      retryNode: ({ context }, { nodeId }) => flowRuns.get(context.run).retryNode(nodeId),
      advance: ({ context }, { round }) => flowRuns.get(context.run).advance(round),
    },
    guards: {
      roundSettled: ({ context }) => flowRuns.get(context.run).roundSettled(),
      hasFailed: ({ context }) => flowRuns.get(context.run).hasFailed(),
      hasRound: ({ context }) => flowRuns.get(context.run).hasRound(),
    },
  });
}

/** A flow's supervisor, as `createFlowSupervisor` builds it. */
export type FlowSupervisor = ReturnType<typeof createFlowSupervisor>;
