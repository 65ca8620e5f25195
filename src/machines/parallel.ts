import { type AnyActorRef, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeSettledEvent } from './lifecycle.js';
import { type RetryEffects, type WithEffects, willRetry } from './settled.js';

/** What the parallel supervisor asks of its run. */
export interface ParallelEffects extends RetryEffects {
  /** Starts the task at `index`, under `supervisor`. */
  startNode(index: number, supervisor: AnyActorRef): void;
}

/** Input of the parallel supervisor. */
export interface ParallelInput extends WithEffects<ParallelEffects> {
  total: number;
  /** Task runs in flight at most, at least 1. */
  maxConcurrency: number;
}

/** Context of the parallel supervisor: counters only, so each event costs O(1). */
export interface ParallelContext extends WithEffects<ParallelEffects> {
  total: number;
  maxConcurrency: number;
  /** Position of the next task to start. */
  next: number;
  inFlight: number;
  settled: number;
  error: unknown;
}

/** Output of the parallel supervisor. */
export interface ParallelOutput {
  error: unknown;
}

/**
 * The parallel supervisor: starts tasks in list order while fewer than `maxConcurrency` are in
 * flight, retries failed attempts in their slot, and lets a task that fails for good free its slot
 * without touching the others. Done when every task settled.
 */
export const parallelMachine = setup({
  types: {
    context: {} as ParallelContext,
    input: {} as ParallelInput,
    events: {} as NodeSettledEvent | AbortEvent,
    output: {} as ParallelOutput,
  },
  actions: {
    startNode: ({ context, self }, { index }: { index: number }) => context.effects.startNode(index, self),
    retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    allSettled: ({ context }) => context.settled === context.total,
    hasSlot: ({ context }) => context.next < context.total && context.inFlight < context.maxConcurrency,
    willRetry,
  },
}).createMachine({
  id: 'parallel',
  context: ({ input }) => ({
    effects: input.effects,
    total: input.total,
    maxConcurrency: input.maxConcurrency,
    next: 0,
    inFlight: 0,
    settled: 0,
    error: undefined,
  }),
  initial: 'running',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    running: {
      always: [
        { guard: 'allSettled', target: 'done' },
        {
          guard: 'hasSlot',
          actions: [
            { type: 'startNode', params: ({ context }) => ({ index: context.next }) },
            assign({
              next: ({ context }) => context.next + 1,
              inFlight: ({ context }) => context.inFlight + 1,
            }),
          ],
        },
      ],
      on: {
        'NODE.COMPLETED': {
          actions: [
            stopChild(({ event }) => event.run),
            assign({
              inFlight: ({ context }) => context.inFlight - 1,
              settled: ({ context }) => context.settled + 1,
            }),
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
              assign({
                inFlight: ({ context }) => context.inFlight - 1,
                settled: ({ context }) => context.settled + 1,
              }),
            ],
          },
        ],
        // It waits (for a human): it frees its slot; the others go on.
        'NODE.WAITING': {
          actions: [
            stopChild(({ event }) => event.run),
            assign({
              inFlight: ({ context }) => context.inFlight - 1,
              settled: ({ context }) => context.settled + 1,
            }),
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
