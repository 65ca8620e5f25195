import type { AnyActorRef } from 'xstate';
import { InternalError } from '../errors.js';
import type { NodeFailure, WorkOutcome } from './lifecycle.js';

/**
 * What every supervisor gets in its input and keeps in its context: its run's effects, which its
 * actions call. The machine is defined once; each run brings its own effects, so the same machine
 * runs with a real model, a scripted one, or under `@xstate/graph` (which never runs actions).
 */
export interface WithEffects<E> {
  effects: E;
}

/** What every crew supervisor asks of its run: a failed attempt tried again, after its backoff. */
export interface RetryEffects {
  retryNode(nodeId: string): void;
}

/**
 * Sends an advisor's actor (a manager, a judge: found by its system id in the supervisor's actor
 * system) a request for work, which it answers with `WORK.DONE`.
 */
export function askAdvisor(
  system: { get(systemId: string): AnyActorRef | undefined },
  systemId: string,
  request: { type: 'WORK'; nodeId: string; attempt: number; replyTo: AnyActorRef },
): void {
  const advisor = system.get(systemId);
  if (advisor === undefined)
    throw new InternalError('askAdvisor', `No advisor "${systemId}" in this run`, { systemId });
  advisor.send(request);
}

/** The context every chain supervisor (sequential, hierarchical, loop) keeps: a position in its tasks. */
export interface ChainPosition {
  index: number;
  total: number;
}

/** Whether a failed attempt will be retried (its lifecycle allows it): a guard every supervisor shares. */
export const willRetry = ({ event }: { event: { type: string; willRetry?: boolean } }): boolean =>
  event.type === 'NODE.FAILED' && event.willRetry === true;

/** Guards every chain supervisor shares. */
export const chainGuards = {
  /** A task remains at the current position. */
  hasNext: ({ context }: { context: ChainPosition }) => context.index < context.total,
  /** The task in flight is the last one. */
  isLast: ({ context }: { context: ChainPosition }) => context.index + 1 >= context.total,
  willRetry,
};

/** An advisor's answer (a hierarchical manager's, a loop judge's): the outcome of what it was asked. */
export interface AdvisorAnswer {
  type: 'WORK.DONE';
  attempt: number;
  outcome: WorkOutcome;
}

/** Whether an advisor's answer is a success: a guard the supervisors with advisors share. */
export const answered = ({ event }: { event: { type: string; outcome?: WorkOutcome } }): boolean =>
  event.outcome?.ok === true;

/** The text of an advisor's successful answer (a role, a synthesis). */
export const answerText = ({ event }: { event: { outcome?: WorkOutcome } }): string | undefined =>
  event.outcome?.ok === true ? String(event.outcome.output) : undefined;

/** What an advisor's failed answer rejects the run with: what it threw, else its failure record. */
export const answerError = ({ event }: { event: { outcome?: WorkOutcome } }): unknown =>
  event.outcome !== undefined && !event.outcome.ok ? (event.outcome.cause ?? event.outcome.error) : undefined;

/**
 * Whether an advisor's answer is the run's budget refusing its model call: the supervisor then ends
 * the run with what it has (partial) instead of rejecting it.
 */
export const budgetSpent = ({ event }: { event: { type: string; outcome?: WorkOutcome } }): boolean =>
  event.outcome !== undefined && !event.outcome.ok && event.outcome.error.code === 'budget_exceeded';

/** The failure record of an advisor's failed answer. */
export const answerFailure = ({ event }: { event: { outcome?: WorkOutcome } }): NodeFailure =>
  event.outcome !== undefined && !event.outcome.ok
    ? event.outcome.error
    : { message: 'the advisor answered', retryable: false };
