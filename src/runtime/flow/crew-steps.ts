import { AnswerRequiredError, InvalidOptionError } from '../../errors.js';
import type { PendingCrew, PendingFlow, PendingStep } from '../../machines/flow/waits.js';
import type { NodeWait } from '../../machines/lifecycle.js';
import type { ApprovalAnswer, CrewPending, ReviewAnswer } from '../../types.js';
import { type HumanAnswers, readAnswers } from '../run/answers.js';
import type { ChildWaits } from '../run/child-run.js';
import type { ChildRequest, CrewStepAnswer, FlowStepAnswer, StepAnswer } from './snapshot.js';

/**
 * Answers `flow.resume(id, { approvals, reviews })` gives the crews of waiting steps: by `callId`
 * and by task node id, as each crew's `pending` names them.
 */
export interface CrewAnswerInput {
  approvals?: Readonly<Record<string, ApprovalAnswer>> | undefined;
  reviews?: Readonly<Record<string, ReviewAnswer>> | undefined;
  /**
   * The waiting step whose crew the answers are for: needed only when the crews of several steps
   * wait for the same id (each answer goes to every step whose crew waits for it otherwise).
   */
  step?: string | undefined;
}

/** Whether a resume's answer is for crews (it has `approvals` or `reviews`), not a human step's route. */
export function isCrewAnswer(answer: unknown): answer is CrewAnswerInput {
  return typeof answer === 'object' && answer !== null && ('approvals' in answer || 'reviews' in answer);
}

/** How a waiting crew's item is named in messages. */
const describe = (step: string, w: CrewPending) =>
  w.kind === 'approval'
    ? `call ${w.callId} of step "${step}"`
    : `the review of ${w.nodeId} in step "${step}"`;

/**
 * Sends crew answers to the waiting steps whose crew waits for them (each answer to every step whose
 * crew waits for its call id or node id): one answer per step that gets any. None at all is
 * `answer_required`; an answer no waiting crew waits for is `invalid_option`, naming what waits.
 */
export function crewStepAnswers(
  flow: string,
  id: string,
  pending: readonly PendingStep[],
  given: CrewAnswerInput,
): CrewStepAnswer[] {
  const where = `Flow "${flow}" resume`;
  const answers = readAnswers(where, given.approvals, given.reviews);
  const crews = pending.filter(
    (p): p is PendingCrew => p.kind === 'crew' && (given.step === undefined || p.step === given.step),
  );
  if (answers === undefined || crews.length === 0) {
    const which = given.step === undefined ? 'it' : `step "${given.step}"`;
    const what =
      crews.length === 0 ? `no crew of ${which} waits` : 'answer its crews with { approvals, reviews }';
    throw new AnswerRequiredError(
      flow,
      id,
      pending.map((p) => p.step),
      what,
    );
  }
  const byStep = new Map<string, CrewStepAnswer>();
  const answerOf = (crew: PendingCrew): CrewStepAnswer => {
    let answer = byStep.get(crew.nodeId);
    if (answer === undefined) {
      const { step, nodeId, executionId } = crew;
      answer = { kind: 'crew', step, nodeId, executionId, approvals: {}, reviews: {} };
      byStep.set(nodeId, answer);
    }
    return answer;
  };
  const waiting = crews.flatMap((c) => c.pending.map((w) => describe(c.step, w))).join(', ');
  const route = (option: 'approvals' | 'reviews', key: string, fits: (w: CrewPending) => boolean) => {
    const owners = crews.filter((c) => c.pending.some(fits));
    if (owners.length === 0) {
      throw new InvalidOptionError(where, option, 'an id a waiting crew waits for', key, {
        message: `${where}: ${option} names "${key}", which no crew of a waiting step waits for; they wait for ${waiting}`,
      });
    }
    return owners.map(answerOf);
  };
  for (const [callId, answer] of Object.entries(answers.approvals)) {
    const fits = (w: CrewPending) => w.kind === 'approval' && w.callId === callId;
    for (const owner of route('approvals', callId, fits)) owner.approvals[callId] = answer;
  }
  for (const [nodeId, answer] of Object.entries(answers.reviews)) {
    const fits = (w: CrewPending) => w.kind === 'review' && w.nodeId === nodeId;
    for (const owner of route('reviews', nodeId, fits)) owner.reviews[nodeId] = answer;
  }
  return [...byStep.values()];
}

/**
 * The steps of one flow run whose crews (or child flows) waited when the run paused, and the answers
 * a resume gave them. The one place that knows both.
 */
export class FlowCrewWaits {
  readonly #stored = new Map<string, PendingCrew | PendingFlow>();
  readonly #answers = new Map<string, CrewStepAnswer>();
  readonly #flowAnswers = new Map<string, FlowStepAnswer>();

  constructor(stored: readonly PendingStep[] = [], answers: readonly StepAnswer[] = []) {
    for (const p of stored) if (p.kind === 'crew' || p.kind === 'flow') this.#stored.set(p.nodeId, p);
    for (const a of answers) {
      if (a.kind === 'crew') this.#answers.set(a.nodeId, a);
      if (a.kind === 'flow') this.#flowAnswers.set(a.nodeId, a);
    }
  }

  /**
   * The stored wait of a step run the resumed run found waiting on its crew or child flow, unless it
   * was answered (then it runs again); undefined for any other step run.
   */
  unanswered(nodeId: string): PendingCrew | PendingFlow | undefined {
    return this.#answers.has(nodeId) || this.#flowAnswers.has(nodeId) ? undefined : this.#stored.get(nodeId);
  }

  /** What the child flow run `runId` of step run `nodeId` goes on with, if this run was given it. */
  childRequest(nodeId: string, runId: string): ChildRequest | undefined {
    const answer = this.#flowAnswers.get(nodeId);
    return answer?.runId === runId ? answer.request : undefined;
  }

  /** What child flow run `runId` of step run `nodeId` waited for when the run paused, if it did. */
  childWaitedFor(nodeId: string, runId: string): PendingStep[] | undefined {
    const stored = this.#stored.get(nodeId);
    return stored?.kind === 'flow' && stored.runId === runId ? stored.pending : undefined;
  }

  /** The answers for crew run `executionId` of step run `nodeId`, if this run was given some. */
  answerFor(nodeId: string, executionId: string): HumanAnswers | undefined {
    const answer = this.#answers.get(nodeId);
    if (answer?.executionId !== executionId) return undefined;
    return { approvals: answer.approvals, reviews: answer.reviews };
  }

  /** What crew run `executionId` of step run `nodeId` waited for when the run paused, if it did. */
  waitedFor(nodeId: string, executionId: string): CrewPending[] | undefined {
    const stored = this.#stored.get(nodeId);
    return stored?.kind === 'crew' && stored.executionId === executionId ? stored.pending : undefined;
  }
}

/** What a step run waits for when a crew it kicked off paused for a human: its crew, and that crew's wait. */
export function crewWait(
  spec: { step: { name: string }; nodeId: string; payload: unknown },
  waits: ChildWaits,
): NodeWait {
  const { child, executionId } = waits;
  const pending = [...waits.pending];
  const keep: PendingCrew = {
    kind: 'crew',
    step: spec.step.name,
    nodeId: spec.nodeId,
    crew: child,
    executionId,
    pending,
    payload: spec.payload,
  };
  return { waitingFor: { kind: 'crew', crew: child, executionId, pending }, keep };
}
