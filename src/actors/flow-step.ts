import { type AnyActorRef, fromPromise } from 'xstate';
import { UnknownRouteError } from '../errors.js';
import type { WorkInput, WorkOutcome } from '../machines/lifecycle.js';
import { toFailure } from './failure.js';

/** What a step run needs to know of its step. */
export interface RunnableStep<TContext> {
  name: string;
  /** A router's labels; undefined for other steps. */
  routes: readonly string[] | undefined;
  run(context: TContext): unknown;
}

/** What the step actors of a flow run need from it. */
export interface StepScope<TContext> {
  now(): number;
  /** The step of a live run, and the context its body gets. */
  prepare(
    nodeId: string,
    signal: AbortSignal,
    self: AnyActorRef,
  ): { step: RunnableStep<TContext>; context: TContext };
  /** Checks the state after a step (throws `invalid_state`). */
  check(step: string): void;
}

/**
 * The `work` actor of one flow step run: calls the step's body with its context, checks a router's
 * label against its routes (`unknown_route`) and the state against its schema. Failures resolve as
 * `{ ok: false }`; only an abort rejects.
 */
export function fromFlowStep<TContext>(scope: StepScope<TContext>) {
  return fromPromise<WorkOutcome, WorkInput>(async ({ input, signal, self }) => {
    try {
      const { step, context } = scope.prepare(input.nodeId, signal, self);
      const output: unknown = await step.run(context);
      if (step.routes !== undefined && (typeof output !== 'string' || !step.routes.includes(output))) {
        throw new UnknownRouteError(step.name, output, step.routes);
      }
      scope.check(step.name);
      return { ok: true, output, finishedAt: scope.now() };
    } catch (error) {
      signal.throwIfAborted();
      return { ok: false, error: toFailure(error), finishedAt: scope.now() };
    }
  });
}
