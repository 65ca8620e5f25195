import { type AnyActorRef, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeFailure, NodeSettledEvent } from './lifecycle.js';
import {
  type AdvisorAnswer,
  answerError,
  answered,
  answerFailure,
  answerText,
  askAdvisor,
  budgetSpent,
  chainGuards,
  type RetryEffects,
  type WithEffects,
} from './settled.js';

/** What the hierarchical supervisor asks of its run. */
export interface HierarchicalEffects extends RetryEffects {
  /** Starts the task at `index` with the worker of `role`, under `supervisor`. */
  startNode(index: number, role: string, supervisor: AnyActorRef): void;
  /** Blocks the tasks from `index` on, because `reason` (a node id) failed for good. */
  blockFrom(index: number, reason: string, supervisor: AnyActorRef): void;
  /**
   * The budget refused the manager's call for the task at `index` (`index` = total: the synthesis):
   * records that call as failed and blocks the tasks not run.
   */
  stopForBudget(index: number, failure: NodeFailure, supervisor: AnyActorRef): void;
}

/** Input of the hierarchical supervisor: how many tasks the manager allocates. */
export interface HierarchicalInput extends WithEffects<HierarchicalEffects> {
  total: number;
  /** The system id of the run's manager actor. */
  manager: string;
}

/** Context of the hierarchical supervisor. */
export interface HierarchicalContext extends WithEffects<HierarchicalEffects> {
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
    /**
     * Asks the manager actor to allocate the task at `index`, or (`index` = total) to synthesize. A
     * custom action, not `sendTo`: the first request is resolved when the supervisor is created,
     * before its advisors are.
     */
    askManager: ({ system, context, self }, { index }: { index: number }) =>
      askAdvisor(system, context.manager, {
        type: 'WORK',
        nodeId: index < context.total ? `allocate:${index}` : 'synthesize',
        attempt: index + 1,
        replyTo: self,
      }),
    startNode: ({ context, self }, { index, role }: { index: number; role: string }) =>
      context.effects.startNode(index, role, self),
    retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
    blockFrom: ({ context, self }, { index, reason }: { index: number; reason: string }) =>
      context.effects.blockFrom(index, reason, self),
    stopForBudget: ({ context, self }, { index, failure }: { index: number; failure: NodeFailure }) =>
      context.effects.stopForBudget(index, failure, self),
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
    effects: input.effects,
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
        // It waits (for a human): as a failure for good, the tasks after it cannot start now.
        'NODE.WAITING': {
          target: 'done',
          actions: [
            stopChild(({ event }) => event.run),
            {
              type: 'blockFrom',
              params: ({ context, event }) => ({ index: context.index + 1, reason: event.nodeId }),
            },
          ],
        },
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
