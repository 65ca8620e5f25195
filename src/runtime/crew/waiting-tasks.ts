import { toFailure } from '../../actors/failure.js';
import { type TaskWait, waitingForTask } from '../../actors/pause.js';
import type { AttemptSpec, TaskRunValue } from '../../actors/task-attempt.js';
import { AnswerRequiredError, InvalidOptionError, ReviewRejectedError } from '../../errors.js';
import type { AttemptOutcome, LifecycleEmitted } from '../../machines/lifecycle.js';
import type { JsonValue, Store } from '../../stores/store.js';
import type { CrewPending } from '../../types.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { RunRecorder } from '../engine/recorder.js';
import type { HumanAnswers } from '../run/answers.js';
import type { StoredTaskResult } from './crew-store.js';

/** How a waiting item is named in messages: a call by its id, tool and agent; a review by its node. */
function describePending(pending: CrewPending): string {
  return pending.kind === 'approval'
    ? `call ${pending.callId} (${pending.agent} → ${pending.tool})`
    : `the review of ${pending.nodeId}`;
}

/**
 * Refuses answers that do not fit what a paused run waits for, before anything runs: none at all
 * (`answer_required`), or one naming a call or node that does not wait (`invalid_option`, naming it
 * and what waits). Answers to only some of what waits are fine: the rest waits on.
 */
export function checkAnswers(
  crew: string,
  id: string,
  pending: readonly CrewPending[],
  answers: HumanAnswers | undefined,
): void {
  const waiting = pending.map(describePending);
  if (answers === undefined) {
    const how = 'resume it with { approvals: { [callId]: answer } } or { reviews: { [nodeId]: answer } }';
    throw new AnswerRequiredError(crew, id, waiting, how, 'crew');
  }
  const where = `Crew "${crew}" resume`;
  const calls = pending.flatMap((p) => (p.kind === 'approval' ? [p.callId] : []));
  const reviews = pending.flatMap((p) => (p.kind === 'review' ? [p.nodeId] : []));
  const unknown = (option: string, given: string, known: string[], what: string) =>
    new InvalidOptionError(where, option, `one of ${known.join(', ') || 'none'}`, given, {
      message: `${where}: ${option} names "${given}", which does not wait for ${what}; the run waits for ${waiting.join(', ')}`,
    });
  for (const callId of Object.keys(answers.approvals)) {
    if (!calls.includes(callId)) throw unknown('approvals', callId, calls, 'approval');
  }
  for (const nodeId of Object.keys(answers.reviews)) {
    if (!reviews.includes(nodeId)) throw unknown('reviews', nodeId, reviews, 'a review');
  }
}

/** A stored paused task run: its result, and what it waits for. */
export interface WaitingTask {
  result: StoredTaskResult;
  wait: TaskWait;
}

/** How a waiting task run goes on, decided once its spec is known. */
type GoOn =
  /** Its conversation goes on from where it paused, with the approvals. */
  | { kind: 'converse'; before: number }
  /** Approved: it completes with the reviewed output. */
  | { kind: 'approved'; before: number; value: TaskRunValue }
  /** Nothing answers it: it waits again, as it was (a review; a conversation pauses again by itself). */
  | { kind: 'waits'; before: number }
  /** Sent back: another attempt, told the feedback. */
  | { kind: 'again'; before: number; feedback: string }
  /** Sent back with no attempt left: it fails (`review_rejected`). */
  | { kind: 'rejected'; before: number; feedback: string; attempts: number };

/**
 * The task runs a resumed run finds waiting for a human, and how each goes on with the answers it was
 * given. A waiting run's next lifecycle counts on from the attempts it used: the attempt that paused
 * goes on as the same attempt (a refused review starts the next one), and its earlier usage counts once.
 */
export class WaitingTasks {
  readonly #waiting: ReadonlyMap<string, WaitingTask>;
  readonly #answers: HumanAnswers;
  /** How each waiting run goes on, once its run started (`specOf`). */
  readonly #plans = new Map<string, GoOn>();
  /** The runs whose earlier facts are still to be recorded (at their first start). */
  readonly #unrecorded: Set<string>;

  constructor(waiting: ReadonlyMap<string, WaitingTask>, answers: HumanAnswers | undefined) {
    this.#waiting = waiting;
    this.#answers = answers ?? { approvals: {}, reviews: {} };
    this.#unrecorded = new Set(waiting.keys());
  }

  /** Whether `nodeId` is a run that waited. */
  has(nodeId: string): boolean {
    return this.#waiting.has(nodeId);
  }

  /** The role of the agent that ran `nodeId` before it waited (a manager keeps its allocation). */
  agentOf(nodeId: string): string | undefined {
    return this.#waiting.get(nodeId)?.result.agent;
  }

  /**
   * The spec of a run that waited: its lifecycle allows only the attempts it has left, and its
   * attempt numbers count on from `attemptsBefore`. Any other run's spec is returned as it is.
   */
  specOf<T extends AttemptSpec & { maxAttempts: number; attemptsBefore?: number }>(spec: T): T {
    const task = this.#waiting.get(spec.nodeId);
    if (task === undefined) return spec;
    const plan = this.#plan(task, spec.maxAttempts);
    this.#plans.set(spec.nodeId, plan);
    return { ...spec, maxAttempts: Math.max(1, spec.maxAttempts - plan.before), attemptsBefore: plan.before };
  }

  /**
   * One attempt of a run that waited, `attemptNo` counted by its lifecycle: the first goes on as the
   * answers say (an outcome at once, or the attempt's spec); later ones are ordinary attempts.
   */
  attempt(
    spec: AttemptSpec & { maxAttempts: number; attemptsBefore?: number },
    attemptNo: number,
    now: number,
  ): { spec: AttemptSpec; attemptNo: number } | { outcome: AttemptOutcome } {
    const before = spec.attemptsBefore ?? 0;
    const total = { ...spec, maxAttempts: spec.maxAttempts + before };
    const plan = attemptNo === 1 ? this.#plans.get(spec.nodeId) : undefined;
    const task = this.#waiting.get(spec.nodeId);
    if (plan === undefined || task === undefined) return { spec: total, attemptNo: attemptNo + before };
    const failed = (error: Error): { outcome: AttemptOutcome } => ({
      outcome: { ok: false, error: toFailure(error), finishedAt: now },
    });
    switch (plan.kind) {
      case 'converse': {
        const { wait } = task;
        if (wait.kind !== 'approval') return { spec: total, attemptNo: attemptNo + before };
        const resume = { from: wait.pause, approvals: this.#answers.approvals };
        return { spec: { ...total, resume }, attemptNo: attemptNo + before };
      }
      case 'approved':
        return { outcome: { ok: true, output: plan.value, finishedAt: now } };
      case 'waits': {
        const { wait } = task;
        if (wait.kind !== 'review') return { spec: total, attemptNo: attemptNo + before };
        // Nothing answers its review: it waits on, as it was.
        return { outcome: { waiting: { waitingFor: waitingForTask(wait), keep: wait }, finishedAt: now } };
      }
      case 'again':
        return { spec: { ...total, feedback: plan.feedback }, attemptNo: attemptNo + before };
      case 'rejected':
        return failed(new ReviewRejectedError(spec.name, plan.feedback, plan.attempts));
    }
  }

  /**
   * A run's attempt started: a run that waited takes, at its first start, what its earlier attempts
   * spent and when they started (its usage counts once).
   */
  started(nodeId: string, attempt: number, recorder: RunRecorder): void {
    if (!this.#unrecorded.delete(nodeId)) return;
    const task = this.#waiting.get(nodeId);
    if (task === undefined) return;
    const { startedAt, durationMs, usage } = task.result;
    recorder.restored(nodeId, { attempts: attempt, startedAt, durationMs, usage });
  }

  /** How `task` goes on with the answers, given the attempts its task allows in all. */
  #plan(task: WaitingTask, allowed: number): GoOn {
    const used = task.result.attempts;
    const { wait } = task;
    if (wait.kind === 'approval') return { kind: 'converse', before: used - 1 };
    const answer = this.#answers.reviews[task.result.nodeId];
    if (answer === undefined) return { kind: 'waits', before: used - 1 };
    if (answer.approve) {
      const value: TaskRunValue = { raw: wait.output.raw };
      if ('structured' in wait.output) value.structured = wait.output.structured;
      return { kind: 'approved', before: used - 1, value };
    }
    if (used >= allowed)
      return { kind: 'rejected', before: used - 1, feedback: answer.feedback, attempts: used };
    return { kind: 'again', before: used, feedback: answer.feedback };
  }
}

/** A lifecycle transition with its attempt numbers counted on by `before` (a run that waited). */
export function countedOn(emitted: LifecycleEmitted, before: number): LifecycleEmitted {
  if (before === 0) return emitted;
  switch (emitted.type) {
    case 'node.started':
    case 'node.failed':
    case 'node.retrying':
    case 'node.waiting':
      return { ...emitted, attempt: emitted.attempt + before };
    case 'node.completed':
      return { ...emitted, attempts: emitted.attempts + before };
    default:
      return emitted;
  }
}

/** The key, in `crew_executions`, of the answers the latest resume of a run was given. */
export const ANSWERS_KEY = 'answers';

/**
 * Keeps the answers a resume claimed the run with, in one fenced commit before anything runs: if the
 * process dies while the answered tasks go on, whoever resumes the run next (a runner, `resume`
 * without answers) goes on with them instead of asking the human again. A failed write rejects
 * (`store_unavailable`), and the caller gives the run back as it found it.
 */
export function keepAnswers(owner: RunOwner, answers: HumanAnswers): Promise<void> {
  const value = { approvals: answers.approvals, reviews: answers.reviews } as unknown as JsonValue;
  return owner.commit([{ collection: 'crew_executions', key: ANSWERS_KEY, value }]);
}

/** The answers the latest resume of run `id` was given, if it kept any. */
export async function keptAnswers(store: Store, id: string): Promise<HumanAnswers | undefined> {
  const record = await store.get('crew_executions', id, ANSWERS_KEY);
  if (record === undefined) return undefined;
  const value = record.value as unknown as Partial<HumanAnswers> | null;
  return { approvals: value?.approvals ?? {}, reviews: value?.reviews ?? {} };
}
