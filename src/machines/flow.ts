import { assign, enqueueActions, setup, stopChild } from 'xstate';
import { type AbortEvent, type NodeSettledEvent, type RunKeyed, willRetry } from './settled.js';

/** What the flow supervisor is built from: the flow's name and its steps in definition order. */
export interface FlowMachineDefinition {
  name: string;
  steps: readonly string[];
}

/** Context of the flow supervisor: the round in progress. */
export interface FlowContext extends RunKeyed {
  round: number;
  error: unknown;
}

/** Output of the flow supervisor. */
export interface FlowMachineOutput {
  rounds: number;
  error: unknown;
}

/** Events of the flow supervisor: its step runs settling, `START`, and `ABORT`. */
export type FlowEvent = NodeSettledEvent | AbortEvent | { type: 'START' };

/**
 * Builds the supervisor of a flow: on `START` it runs round after round — `startRound` starts the
 * round's step runs, each settles (`recordDone`, `recordFailed`; an attempt that will be tried again
 * asks `retryNode`), and once `roundSettled`, `advance`
 * decides the next round from what the round emitted — until a round is empty (`done`) or a step
 * failed (`failed`). The round bookkeeping is the runtime's (it grows with the flow, and a snapshot
 * copy per event would make a run quadratic); it provides these actions and the `roundSettled`,
 * `hasFailed` and `hasRound` guards.
 */
export function createFlowMachine(definition: FlowMachineDefinition) {
  return setup({
    types: {
      context: {} as FlowContext,
      input: {} as RunKeyed,
      events: {} as FlowEvent,
      output: {} as FlowMachineOutput,
    },
    actions: {
      startRound: (_, _params: { round: number }) => {},
      recordDone: (_, _params: { nodeId: string }) => {},
      recordFailed: (_, _params: { nodeId: string }) => {},
      retryNode: (_, _params: { nodeId: string }) => {},
      advance: (_, _params: { round: number }) => {},
      stopRuns: enqueueActions(({ event, enqueue }) => {
        if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
      }),
    },
    guards: {
      roundSettled: () => true,
      hasFailed: () => false,
      hasRound: () => false,
      willRetry,
    },
  }).createMachine({
    id: definition.name,
    description: `Flow "${definition.name}" with steps ${definition.steps.join(', ')}`,
    context: ({ input }) => ({ run: input.run, round: 0, error: undefined }),
    initial: 'idle',
    on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
    states: {
      idle: { on: { START: { target: 'round', actions: assign({ round: 1 }) } } },
      round: {
        entry: { type: 'startRound', params: ({ context }) => ({ round: context.round }) },
        always: { guard: 'roundSettled', target: 'between' },
        on: {
          'NODE.COMPLETED': {
            actions: [
              stopChild(({ event }) => event.run),
              { type: 'recordDone', params: ({ event }) => ({ nodeId: event.nodeId }) },
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
                { type: 'recordFailed', params: ({ event }) => ({ nodeId: event.nodeId }) },
              ],
            },
          ],
          'xstate.error.actor.*': {
            target: 'crashed',
            actions: assign({ error: ({ event }) => event.error }),
          },
        },
      },
      between: {
        entry: { type: 'advance', params: ({ context }) => ({ round: context.round }) },
        always: [
          { guard: 'hasFailed', target: 'failed' },
          {
            guard: 'hasRound',
            target: 'round',
            actions: assign({ round: ({ context }) => context.round + 1 }),
          },
          { target: 'done' },
        ],
      },
      done: { type: 'final' },
      failed: { type: 'final' },
      aborted: { type: 'final' },
      crashed: { type: 'final' },
    },
    output: ({ context }) => ({ rounds: context.round, error: context.error }),
  });
}
