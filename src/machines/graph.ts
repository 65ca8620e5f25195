import { assign, enqueueActions, setup, stopChild } from 'xstate';
import { type AbortEvent, type NodeSettledEvent, type RunKeyed, willRetry } from './settled.js';

/** Context of the graph supervisor. */
export interface GraphContext extends RunKeyed {
  error: unknown;
}

/** Output of the graph supervisor. */
export interface GraphOutput {
  error: unknown;
}

/**
 * The graph supervisor: runs a DAG of tasks, each as soon as its dependencies completed. Which tasks
 * are ready, and how many run, is the runtime's scheduler's business — per-node dependency counts in
 * the context would make every snapshot copy O(tasks) — so the runtime provides `fill` (start ready
 * tasks while slots are free), `recordCompleted`, `recordFailed` (which blocks the failed task's
 * descendants) and the `allSettled` guard. XState runs these actions inside the transition that
 * triggers them, so the guard, evaluated after it, sees their effect.
 */
export const graphMachine = setup({
  types: {
    context: {} as GraphContext,
    input: {} as RunKeyed,
    events: {} as NodeSettledEvent | AbortEvent,
    output: {} as GraphOutput,
  },
  actions: {
    fill: (_, _params: Record<string, never>) => {},
    recordCompleted: (_, _params: { nodeId: string }) => {},
    recordFailed: (_, _params: { nodeId: string }) => {},
    retryNode: (_, _params: { nodeId: string }) => {},
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    allSettled: () => true,
    willRetry,
  },
}).createMachine({
  id: 'graph',
  context: ({ input }) => ({ run: input.run, error: undefined }),
  initial: 'running',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    running: {
      entry: { type: 'fill', params: {} },
      always: { guard: 'allSettled', target: 'done' },
      on: {
        'NODE.COMPLETED': {
          actions: [
            stopChild(({ event }) => event.run),
            { type: 'recordCompleted', params: ({ event }) => ({ nodeId: event.nodeId }) },
            { type: 'fill', params: {} },
          ],
        },
        'xstate.error.actor.*': { target: 'crashed', actions: assign({ error: ({ event }) => event.error }) },
        'NODE.FAILED': [
          {
            guard: 'willRetry',
            actions: { type: 'retryNode', params: ({ event }) => ({ nodeId: event.nodeId }) },
          },
          {
            actions: [
              stopChild(({ event }) => event.run),
              { type: 'recordFailed', params: ({ event }) => ({ nodeId: event.nodeId }) },
              { type: 'fill', params: {} },
            ],
          },
        ],
      },
    },
    done: { type: 'final' },
    aborted: { type: 'final' },
    crashed: { type: 'final' },
  },
  output: ({ context }) => ({ error: context.error }),
});
