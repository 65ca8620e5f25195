import type { CrewPending, WaitingStep } from '../../types.js';

/** A human step the run waits for: what it asks, its routes, and the payload that triggered it. */
export interface PendingHuman {
  kind: 'human';
  step: string;
  nodeId: string;
  prompt: string;
  routes: string[];
  payload: unknown;
  /** When it times out, in epoch ms on the run's clock (a step with `timeoutMs`). */
  timeoutAt?: number;
}

/** A wait step the run waits for: the event that completes it, and when it times out. */
export interface PendingEvent {
  kind: 'event';
  step: string;
  nodeId: string;
  event: string;
  payload: unknown;
  /** When it times out, in epoch ms on the run's clock (a step with `timeoutMs`). */
  timeoutAt?: number;
}

/**
 * A step whose crew (`ctx.kickoff`) paused for a human: the crew's stored run and what it waits for
 * (tool calls to approve, outputs to review). `flow.resume(id, { approvals, reviews })` answers it:
 * the step runs again, and its `ctx.kickoff` goes on with the stored crew run.
 */
export interface PendingCrew {
  kind: 'crew';
  step: string;
  nodeId: string;
  /** The crew's name and its paused run's execution id. */
  crew: string;
  executionId: string;
  /** What the crew run waits for, as its `out.pending` says. */
  pending: CrewPending[];
  payload: unknown;
  /** A crew's wait has no deadline. */
  timeoutAt?: undefined;
}

/**
 * A flow step whose child flow paused: the child's stored run and what it waits for (its own
 * pending steps, nested). The parent's `resume`, `signal` and crew answers reach it: the step runs
 * again, and the child goes on with the answer.
 */
export interface PendingFlow {
  kind: 'flow';
  step: string;
  nodeId: string;
  /** The child flow's name and its paused run's id (`<parent id>/<node id>`). */
  flow: string;
  runId: string;
  /** What the child run waits for, as its `out.waiting` says (its first when one). */
  pending: PendingStep[];
  /** Where it waits, from this step: `review › approve` (the first of the child's waits). */
  path: string;
  payload: unknown;
  /** The earliest deadline among the child's waits, if any. */
  timeoutAt?: number;
}

/** A step a paused run waits for: a human's answer, an outside event, a crew's human, or a child flow's. */
export type PendingStep = PendingHuman | PendingEvent | PendingCrew | PendingFlow;

/** A wait at the bottom of a child flow (or of the run itself): what is asked, and where, from the run. */
export interface LeafWait {
  /** The steps from the run down to it: `['review', 'approve']` for step `approve` of step `review`'s child flow. */
  path: string[];
  /** The child run it is in (`undefined`: the run itself). */
  runId: string | undefined;
  wait: PendingHuman | PendingEvent | PendingCrew;
}

/** The innermost waits of `pending`: a child flow's waits in place of its step, each with its path. */
export function leafWaits(pending: readonly PendingStep[], above: string[] = [], runId?: string): LeafWait[] {
  return pending.flatMap((p): LeafWait[] =>
    p.kind === 'flow'
      ? leafWaits(p.pending, [...above, p.step], p.runId)
      : [{ path: [...above, p.step], runId, wait: p }],
  );
}

/** How a path of steps reads: `review › approve`. */
export const PATH_SEPARATOR = ' › ';

/** The step and run number of step run `nodeId`: its step's name, then `#<run>` from its second run on. */
export function stepRunOf(nodeId: string): { step: string; run: number } {
  const match = /^(.*)#(\d+)$/.exec(nodeId);
  return match === null ? { step: nodeId, run: 1 } : { step: match[1] as string, run: Number(match[2]) };
}

/** What a waiting step waits for, as the `flow.paused` event tells it: no prompt, routes or payload. */
export function waitingStepOf(pending: PendingStep): WaitingStep {
  const { step, nodeId, kind, timeoutAt } = pending;
  const waiting: WaitingStep = { step, nodeId, kind };
  if (pending.kind === 'event') waiting.event = pending.event;
  if (pending.kind === 'crew') waiting.executionId = pending.executionId;
  if (pending.kind === 'flow') {
    waiting.runId = pending.runId;
    waiting.path = pending.path;
  }
  if (timeoutAt !== undefined) waiting.timeoutAt = timeoutAt;
  return waiting;
}

/** A completed round: the steps it ran (the trail's part) and what it emitted, in order. */
export interface SnapshotRound {
  steps: string[];
  emitted: string[];
}
