import { type AnyActorRef, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeSettledEvent } from './lifecycle.js';
import { chainGuards, type RetryEffects, type WithEffects } from './settled.js';

/** What the sequential supervisor asks of its run. */
export interface SequentialEffects extends RetryEffects {
  /** Starts the task at `index`, under `supervisor`. */
  startNode(index: number, supervisor: AnyActorRef): void;
  /** Blocks the tasks from `index` on, because `reason` (a node id) failed for good. */
  blockFrom(index: number, reason: string, supervisor: AnyActorRef): void;
}

/** Input of the sequential supervisor: how many tasks it runs. */
export interface SequentialInput extends WithEffects<SequentialEffects> {
  total: number;
}

/** Context of the sequential supervisor: the position of the task in flight. */
export interface SequentialContext extends WithEffects<SequentialEffects> {
  total: number;
  index: number;
  /** What crashed a task run actor, if one crashed. */
  error: unknown;
}

/** Output of the sequential supervisor. */
export interface SequentialOutput {
  error: unknown;
}

/**
 * The sequential supervisor: starts the task at `index`, waits for it to settle, retries it while its
 * lifecycle allows, moves on when it completes, and blocks every later task when it fails for good.
 * A crashed task run actor ends it in `crashed`; `ABORT` ends it in `aborted`, stopping the runs in
 * flight. Its actions call the run's effects (`startNode`, `retryNode`, `blockFrom`), given in its input.
 */
export const sequentialMachine = setup({
  types: {
    context: {} as SequentialContext,
    input: {} as SequentialInput,
    events: {} as NodeSettledEvent | AbortEvent,
    output: {} as SequentialOutput,
  },
  actions: {
    startNode: ({ context, self }, { index }: { index: number }) => context.effects.startNode(index, self),
    retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
    blockFrom: ({ context, self }, { index, reason }: { index: number; reason: string }) =>
      context.effects.blockFrom(index, reason, self),
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    ...chainGuards,
  },
}).createMachine({
  id: 'sequential',
  context: ({ input }) => ({
    effects: input.effects,
    total: input.total,
    index: 0,
    error: undefined,
  }),
  initial: 'next',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    next: {
      always: [{ guard: 'hasNext', target: 'running' }, { target: 'done' }],
    },
    running: {
      entry: { type: 'startNode', params: ({ context }) => ({ index: context.index }) },
      on: {
        'NODE.COMPLETED': [
          {
            guard: 'isLast',
            target: 'done',
            actions: [
              stopChild(({ event }) => event.run),
              assign({ index: ({ context }) => context.index + 1 }),
            ],
          },
          {
            // The next task starts in the same step (no exit and re-entry of `running`).
            actions: [
              stopChild(({ event }) => event.run),
              assign({ index: ({ context }) => context.index + 1 }),
              { type: 'startNode', params: ({ context }) => ({ index: context.index }) },
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
        // It waits (for a human): the run ends here, paused; the tasks after it cannot start.
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
    done: { type: 'final' },
    aborted: { type: 'final' },
    crashed: { type: 'final' },
  },
  output: ({ context }) => ({ error: context.error }),
});
