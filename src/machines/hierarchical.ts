import { assign, enqueueActions, setup, stopChild } from 'xstate';
import type { NodeFailure } from './lifecycle.js';
import {
  type AbortEvent,
  type AdvisorAnswer,
  answerError,
  answered,
  answerFailure,
  answerText,
  budgetSpent,
  chainGuards,
  type NodeSettledEvent,
  type RunKeyed,
} from './settled.js';

/** Input of the hierarchical supervisor: how many tasks the manager allocates. */
export interface HierarchicalInput extends RunKeyed {
  total: number;
  /** The system id of the run's manager actor. */
  manager: string;
}

/** Context of the hierarchical supervisor. */
export interface HierarchicalContext extends RunKeyed {
  total: number;
  manager: string;
  index: number;
  /** The worker role the manager chose for the task at `index`. */
  role: string | undefined;
  synthesis: string | undefined;
  /** Why the run was rejected (a manager call failed). */
  error: unknown;
}

/** Output of the hierarchical supervisor. */
export interface HierarchicalOutput {
  synthesis: string | undefined;
  error: unknown;
}

/**
 * The hierarchical supervisor: for each task it asks the run's manager actor to allocate a worker
 * (`askManager`, answered by `WORK.DONE`), the worker runs the task (`startNode`), and after the last
 * task it asks the manager to synthesize: `tasks + 1` manager calls. A task that fails for good blocks the rest and skips synthesis;
 * a failed manager call rejects the run, except one the run's budget refused, which ends it with what it has; `ABORT` stops whatever is in flight.
 */
export const hierarchicalMachine = setup({
  types: {
    context: {} as HierarchicalContext,
    input: {} as HierarchicalInput,
    events: {} as NodeSettledEvent | AbortEvent | AdvisorAnswer,
    output: {} as HierarchicalOutput,
  },
  actions: {
    /** Asks the manager actor to allocate the task at `index`, or (`index` = total) to synthesize. */
    askManager: (_, _params: { index: number }) => {},
    startNode: (_, _params: { index: number; role: string }) => {},
    retryNode: (_, _params: { nodeId: string }) => {},
    blockFrom: (_, _params: { index: number; reason: string }) => {},
    /**
     * The budget refused the manager's call for the task at `index` (`index` = total: the synthesis):
     * records that call as failed and blocks the tasks not run.
     */
    stopForBudget: (_, _params: { index: number; failure: NodeFailure }) => {},
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    ...chainGuards,
    answered,
    budgetSpent,
  },
}).createMachine({
  id: 'hierarchical',
  context: ({ input }) => ({
    run: input.run,
    total: input.total,
    manager: input.manager,
    index: 0,
    role: undefined,
    synthesis: undefined,
    error: undefined,
  }),
  initial: 'next',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    next: {
      always: [{ guard: 'hasNext', target: 'allocating' }, { target: 'synthesizing' }],
    },
    allocating: {
      entry: { type: 'askManager', params: ({ context }) => ({ index: context.index }) },
      on: {
        'WORK.DONE': [
          {
            guard: 'answered',
            target: 'working',
            actions: assign({
              role: answerText,
            }),
          },
          {
            guard: 'budgetSpent',
            target: 'done',
            actions: {
              type: 'stopForBudget',
              params: ({ context, event }) => ({ index: context.index, failure: answerFailure({ event }) }),
            },
          },
          { target: 'rejected', actions: assign({ error: answerError }) },
        ],
      },
    },
    working: {
      entry: {
        type: 'startNode',
        params: ({ context }) => ({ index: context.index, role: context.role ?? '' }),
      },
      on: {
        'NODE.COMPLETED': [
          {
            guard: 'isLast',
            target: 'synthesizing',
            actions: [
              stopChild(({ event }) => event.run),
              assign({ index: ({ context }) => context.index + 1 }),
            ],
          },
          {
            target: 'allocating',
            actions: [
              stopChild(({ event }) => event.run),
              assign({ index: ({ context }) => context.index + 1 }),
            ],
          },
        ],
        'xstate.error.actor.*': { target: 'crashed', actions: assign({ error: ({ event }) => event.error }) },
        'NODE.FAILED': [
          {
            guard: 'willRetry',
            actions: { type: 'retryNode', params: ({ event }) => ({ nodeId: event.nodeId }) },
          },
          {
            target: 'done',
            actions: [
              stopChild(({ event }) => event.run),
              {
                type: 'blockFrom',
                params: ({ context, event }) => ({ index: context.index + 1, reason: event.nodeId }),
              },
            ],
          },
        ],
      },
    },
    synthesizing: {
      entry: { type: 'askManager', params: ({ context }) => ({ index: context.total }) },
      on: {
        'WORK.DONE': [
          {
            guard: 'answered',
            target: 'done',
            actions: assign({
              synthesis: answerText,
            }),
          },
          {
            guard: 'budgetSpent',
            target: 'done',
            actions: {
              type: 'stopForBudget',
              params: ({ context, event }) => ({ index: context.total, failure: answerFailure({ event }) }),
            },
          },
          { target: 'rejected', actions: assign({ error: answerError }) },
        ],
      },
    },
    done: { type: 'final' },
    aborted: { type: 'final' },
    rejected: { type: 'final' },
    crashed: { type: 'final' },
  },
  output: ({ context }) => ({
    synthesis: context.synthesis,
    error: context.error,
  }),
});
