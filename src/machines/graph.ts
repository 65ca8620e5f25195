import { type AnyActorRef, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeSettledEvent } from './lifecycle.js';
import { type RetryEffects, type WithEffects, willRetry } from './settled.js';

/** What the graph supervisor asks of its run: its scheduler's work, and whether every task settled. */
export interface GraphEffects extends RetryEffects {
  /** Starts ready tasks while slots are free, under `supervisor`. */
  fill(supervisor: AnyActorRef): void;
  recordCompleted(nodeId: string): void;
  /** Records a task that failed for good, blocking its descendants. */
  recordFailed(nodeId: string, supervisor: AnyActorRef): void;
  /** Records a task that waits (for a human), blocking its descendants in this run. */
  recordWaiting(nodeId: string, supervisor: AnyActorRef): void;
  /** Whether every task settled (completed, failed or blocked). */
  allSettled(): boolean;
}

/** Context of the graph supervisor. */
export interface GraphContext extends WithEffects<GraphEffects> {
  error: unknown;
}

/** Output of the graph supervisor. */
export interface GraphOutput {
  error: unknown;
}

/**
 * The graph supervisor: runs a DAG of tasks, each as soon as its dependencies completed. Which tasks
 * are ready, and how many run, is the runtime's scheduler's business — per-node dependency counts in
 * the context would make every snapshot copy O(tasks) — so its effects do it: `fill` (start ready
 * tasks while slots are free), `recordCompleted`, `recordFailed` (which blocks the failed task's
 * descendants) and `allSettled`, which its guard reads. XState runs these actions inside the transition that
 * triggers them, so the guard, evaluated after it, sees their effect.
 */
export const graphMachine = setup({
  types: {
    context: {} as GraphContext,
    input: {} as WithEffects<GraphEffects>,
    events: {} as NodeSettledEvent | AbortEvent,
    output: {} as GraphOutput,
  },
  actions: {
    fill: ({ context, self }) => context.effects.fill(self),
    recordCompleted: ({ context }, { nodeId }: { nodeId: string }) => context.effects.recordCompleted(nodeId),
    recordFailed: ({ context, self }, { nodeId }: { nodeId: string }) =>
      context.effects.recordFailed(nodeId, self),
    recordWaiting: ({ context, self }, { nodeId }: { nodeId: string }) =>
      context.effects.recordWaiting(nodeId, self),
    retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    allSettled: ({ context }) => context.effects.allSettled(),
    willRetry,
  },
}).createMachine({
  id: 'graph',
  context: ({ input }) => ({ effects: input.effects, error: undefined }),
  initial: 'running',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    running: {
      entry: 'fill',
      always: { guard: 'allSettled', target: 'done' },
      on: {
        'NODE.COMPLETED': {
          actions: [
            stopChild(({ event }) => event.run),
            { type: 'recordCompleted', params: ({ event }) => ({ nodeId: event.nodeId }) },
            'fill',
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
              'fill',
            ],
          },
        ],
        // It waits (for a human): its descendants cannot start until it goes on (in a later run).
        'NODE.WAITING': {
          actions: [
            stopChild(({ event }) => event.run),
            { type: 'recordWaiting', params: ({ event }) => ({ nodeId: event.nodeId }) },
            'fill',
          ],
        },
      },
    },
    done: { type: 'final' },
    aborted: { type: 'final' },
    crashed: { type: 'final' },
  },
  output: ({ context }) => ({ error: context.error }),
});
