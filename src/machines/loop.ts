import { type AnyActorRef, and, assign, enqueueActions, setup, stopChild } from 'xstate';
import type { AbortEvent, NodeFailure, NodeSettledEvent } from './lifecycle.js';
import {
  type AdvisorAnswer,
  answerError,
  answered,
  answerFailure,
  askAdvisor,
  budgetSpent,
  chainGuards,
  type RetryEffects,
  type WithEffects,
} from './settled.js';

/** A judge's verdict on the loop's condition. */
export type Verdict = 'yes' | 'no';

/** What the loop supervisor asks of its run. */
export interface LoopEffects extends RetryEffects {
  /** Starts the task at `index` of `iteration`, under `supervisor`. */
  startNode(iteration: number, index: number, supervisor: AnyActorRef): void;
  /** Blocks the tasks of `iteration` from `index` on, because `reason` (a node id) failed for good. */
  blockFrom(iteration: number, index: number, reason: string, supervisor: AnyActorRef): void;
  /** The budget refused the judge's call after `iteration`: records that call as failed. */
  stopForBudget(iteration: number, failure: NodeFailure): void;
}

/** Input of the loop supervisor. */
export interface LoopInput extends WithEffects<LoopEffects> {
  /** Tasks per iteration. */
  total: number;
  maxIterations: number;
  /** The system id of the run's judge actor. */
  judge: string;
}

/** Context of the loop supervisor. */
export interface LoopContext extends WithEffects<LoopEffects> {
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
    askJudge: ({ system, context, self }, { iteration }: { iteration: number }) =>
      askAdvisor(system, context.judge, {
        type: 'WORK',
        nodeId: `judge:${iteration}`,
        attempt: iteration,
        replyTo: self,
      }),
    startNode: ({ context, self }, { iteration, index }: { iteration: number; index: number }) =>
      context.effects.startNode(iteration, index, self),
    retryNode: ({ context }, { nodeId }: { nodeId: string }) => context.effects.retryNode(nodeId),
    blockFrom: (
      { context, self },
      { iteration, index, reason }: { iteration: number; index: number; reason: string },
    ) => context.effects.blockFrom(iteration, index, reason, self),
    stopForBudget: ({ context }, { iteration, failure }: { iteration: number; failure: NodeFailure }) =>
      context.effects.stopForBudget(iteration, failure),
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
    effects: input.effects,
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
        // It waits (for a human): as a failure for good, the tasks after it cannot start now.
        'NODE.WAITING': {
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
