import { and, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { NodeFailure } from './lifecycle.js';
import {
  type AbortEvent,
  type AdvisorAnswer,
  answerError,
  answered,
  answerFailure,
  budgetSpent,
  chainGuards,
  type NodeSettledEvent,
  type RunKeyed,
} from './settled.js';

/** A judge's verdict on the loop's condition. */
export type Verdict = 'yes' | 'no';

/** Input of the loop supervisor. */
export interface LoopInput extends RunKeyed {
  /** Tasks per iteration. */
  total: number;
  maxIterations: number;
  /** The system id of the run's judge actor. */
  judge: string;
}

/** Context of the loop supervisor. */
export interface LoopContext extends RunKeyed {
  total: number;
  maxIterations: number;
  judge: string;
  /** The iteration in progress, from 1. */
  iteration: number;
  /** Position of the task in flight within the iteration. */
  index: number;
  conditionMet: boolean;
  error: unknown;
}

/** Output of the loop supervisor. */
export interface LoopOutput {
  iterations: number;
  conditionMet: boolean;
  error: unknown;
}

/**
 * The loop supervisor: runs the tasks in order (an iteration), then asks the run's judge actor
 * (`askJudge`, answered by `WORK.DONE`) whether the condition holds; stops on `yes` or after `maxIterations`, else starts the next iteration. A task that
 * fails for good blocks the rest of its iteration and ends the loop without a verdict; a judge that
 * cannot be understood rejects the run. With no tasks there is nothing to judge: it ends at once.
 */
export const loopMachine = setup({
  types: {
    context: {} as LoopContext,
    input: {} as LoopInput,
    events: {} as NodeSettledEvent | AbortEvent | AdvisorAnswer,
    output: {} as LoopOutput,
  },
  actions: {
    /** Asks the judge actor whether the condition holds after `iteration`. */
    askJudge: (_, _params: { iteration: number }) => {},
    startNode: (_, _params: { iteration: number; index: number }) => {},
    retryNode: (_, _params: { nodeId: string }) => {},
    blockFrom: (_, _params: { iteration: number; index: number; reason: string }) => {},
    /** The budget refused the judge's call after `iteration`: records that call as failed. */
    stopForBudget: (_, _params: { iteration: number; failure: NodeFailure }) => {},
    stopRuns: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'ABORT') for (const run of event.runs) enqueue.stopChild(run);
    }),
  },
  guards: {
    ...chainGuards,
    noTasks: ({ context }) => context.total === 0,
    answered,
    budgetSpent,
    holds: ({ event }) =>
      event.type === 'WORK.DONE' && event.outcome.ok && event.outcome.output === ('yes' satisfies Verdict),
    iterationsLeft: ({ context }) => context.iteration < context.maxIterations,
  },
}).createMachine({
  id: 'loop',
  context: ({ input }) => ({
    run: input.run,
    total: input.total,
    maxIterations: input.maxIterations,
    judge: input.judge,
    iteration: 1,
    index: 0,
    conditionMet: false,
    error: undefined,
  }),
  initial: 'next',
  on: { ABORT: { target: '.aborted', actions: 'stopRuns' } },
  states: {
    next: {
      always: [
        { guard: 'hasNext', target: 'running' },
        { guard: 'noTasks', target: 'done' },
        { target: 'judging' },
      ],
    },
    running: {
      entry: {
        type: 'startNode',
        params: ({ context }) => ({ iteration: context.iteration, index: context.index }),
      },
      on: {
        'NODE.COMPLETED': [
          {
            guard: 'isLast',
            target: 'judging',
            actions: [
              stopChild(({ event }) => event.run),
              assign({ index: ({ context }) => context.index + 1 }),
            ],
          },
          {
            target: 'running',
            reenter: true,
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
                params: ({ context, event }) => ({
                  iteration: context.iteration,
                  index: context.index + 1,
                  reason: event.nodeId,
                }),
              },
            ],
          },
        ],
      },
    },
    judging: {
      entry: { type: 'askJudge', params: ({ context }) => ({ iteration: context.iteration }) },
      on: {
        'WORK.DONE': [
          { guard: 'holds', target: 'done', actions: assign({ conditionMet: true }) },
          {
            guard: and(['answered', 'iterationsLeft']),
            target: 'next',
            actions: assign({ iteration: ({ context }) => context.iteration + 1, index: 0 }),
          },
          { guard: 'answered', target: 'done' },
          {
            guard: 'budgetSpent',
            target: 'done',
            actions: {
              type: 'stopForBudget',
              params: ({ context, event }) => ({
                iteration: context.iteration,
                failure: answerFailure({ event }),
              }),
            },
          },
          { target: 'rejected', actions: assign({ error: answerError }) },
        ],
      },
    },
    done: { type: 'final' },
    rejected: { type: 'final' },
    aborted: { type: 'final' },
    crashed: { type: 'final' },
  },
  output: ({ context }) => ({
    iterations: context.iteration,
    conditionMet: context.conditionMet,
    error: context.error,
  }),
});
