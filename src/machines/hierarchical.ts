import { assign, enqueueActions, fromPromise, setup, stopChild } from 'xstate';
import { type AbortEvent, chainGuards, type NodeSettledEvent, type RunKeyed } from './settled.js';

/** Input of the hierarchical supervisor: how many tasks the manager allocates. */
export interface HierarchicalInput extends RunKeyed {
  total: number;
}

/** Context of the hierarchical supervisor. */
export interface HierarchicalContext extends RunKeyed {
  total: number;
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
 * The hierarchical supervisor: for each task the manager allocates a worker (`allocate` actor), the
 * worker runs the task (`startNode`), and after the last task the manager synthesizes (`synthesize`
 * actor): `tasks + 1` manager calls. A task that fails for good blocks the rest and skips synthesis;
 * a failed manager call rejects the run; `ABORT` stops whatever is in flight.
 */
export const hierarchicalMachine = setup({
  types: {
    context: {} as HierarchicalContext,
    input: {} as HierarchicalInput,
    events: {} as NodeSettledEvent | AbortEvent,
    output: {} as HierarchicalOutput,
  },
  actors: {
    allocate: fromPromise<string, { run: string; index: number }>(async () => {
      throw new Error('No allocate actor was provided');
    }),
    synthesize: fromPromise<string, RunKeyed>(async () => {
      throw new Error('No synthesize actor was provided');
    }),
  },
  actions: {
    startNode: (_, _params: { index: number; role: string }) => {},
    retryNode: (_, _params: { nodeId: string }) => {},
    blockFrom: (_, _params: { index: number; reason: string }) => {},
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    ...chainGuards,
  },
}).createMachine({
  id: 'hierarchical',
  context: ({ input }) => ({
    run: input.run,
    total: input.total,
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
      invoke: {
        id: 'allocate',
        src: 'allocate',
        input: ({ context }) => ({ run: context.run, index: context.index }),
        onDone: { target: 'working', actions: assign({ role: ({ event }) => event.output }) },
        onError: { target: 'rejected', actions: assign({ error: ({ event }) => event.error }) },
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
      invoke: {
        id: 'synthesize',
        src: 'synthesize',
        input: ({ context }) => ({ run: context.run }),
        onDone: { target: 'done', actions: assign({ synthesis: ({ event }) => event.output }) },
        onError: { target: 'rejected', actions: assign({ error: ({ event }) => event.error }) },
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
