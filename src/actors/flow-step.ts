import { UnknownRouteError } from '../errors.js';
import type { AttemptOutcome, NodeWait } from '../machines/lifecycle.js';
import { toFailure } from './failure.js';

/** What a step run needs to know of its step. */
export interface RunnableStep<TContext> {
  name: string;
  /** A router's labels; undefined for other steps. */
  routes: readonly string[] | undefined;
  run(context: TContext): unknown;
}

/**
 * One flow step run (the `work` of its lifecycle): calls the step's body with its context, checks a
 * router's label against its routes (`unknown_route`) and what it left with `check`. Failures resolve as
 * `{ ok: false }`, and a wait (a crew it ran paused) as a wait; only an abort rejects.
 */
export async function runFlowStep<TContext>(
  step: RunnableStep<TContext>,
  context: TContext,
  signal: AbortSignal,
  scope: {
    now(): number;
    check(output: unknown): void;
    /** What the step waits for when it threw `error` (a crew it ran that paused), else undefined. */
    waits?(error: unknown): NodeWait | undefined;
  },
): Promise<AttemptOutcome> {
  try {
    const output: unknown = await step.run(context);
    if (step.routes !== undefined && (typeof output !== 'string' || !step.routes.includes(output))) {
      throw new UnknownRouteError(step.name, output, step.routes);
    }
    scope.check(output);
    return { ok: true, output, finishedAt: scope.now() };
  } catch (error) {
    signal.throwIfAborted();
    const waiting = scope.waits?.(error);
    if (waiting !== undefined) return { waiting, finishedAt: scope.now() };
    return { ok: false, error: toFailure(error), finishedAt: scope.now() };
  }
}
