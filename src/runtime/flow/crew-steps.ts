import { AwaitingHumanError } from '../../actors/pause.js';
import { AnswerRequiredError, InvalidOptionError } from '../../errors.js';
import type { PendingCrew, PendingStep } from '../../machines/flow/waits.js';
import type { Store } from '../../stores/store.js';
import type { ApprovalAnswer, CrewOutput, CrewPending, Failure, ReviewAnswer } from '../../types.js';
import type { Crew } from '../crew/crew.js';
import { readAnswers } from '../crew/crew-answers.js';
import { storedPending } from '../crew/crew-resume.js';
import type { CrewRun } from '../crew/crew-run.js';
import type { RunOptions } from '../crew/run-options.js';
import type { CrewStepAnswer, StepAnswer } from './snapshot.js';

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
 * The steps of one flow run whose crews wait for a human: the ones the resumed run found waiting
 * (with the answers it was given), and the ones that paused in this run. The one place that knows
 * both.
 */
export class FlowCrewWaits {
  readonly #stored = new Map<string, PendingCrew>();
  readonly #answers = new Map<string, CrewStepAnswer>();
  readonly #noted = new Map<string, PendingCrew>();

  constructor(stored: readonly PendingStep[] = [], answers: readonly StepAnswer[] = []) {
    for (const p of stored) if (p.kind === 'crew') this.#stored.set(p.nodeId, p);
    for (const a of answers) if (a.kind === 'crew') this.#answers.set(a.nodeId, a);
  }

  /**
   * The stored wait of a step run the resumed run found waiting on its crew, unless it was answered
   * (then it runs again); undefined for any other step run.
   */
  unanswered(nodeId: string): PendingCrew | undefined {
    return this.#answers.has(nodeId) ? undefined : this.#stored.get(nodeId);
  }

  /** The answers for crew run `executionId` of step run `nodeId`, if this run was given some. */
  answerFor(nodeId: string, executionId: string): CrewStepAnswer | undefined {
    const answer = this.#answers.get(nodeId);
    return answer?.executionId === executionId ? answer : undefined;
  }

  /**
   * A step run failed: when its failure is a crew waiting for a human, it is noted as the wait of the
   * step run (the flow pauses on it) and true is returned; else false.
   */
  note(spec: { step: { name: string }; nodeId: string; payload: unknown }, failure: Failure): boolean {
    const details = failure.details as
      | { kind?: unknown; crew?: string; executionId?: string; pending?: CrewPending[] }
      | undefined;
    if (failure.code !== 'awaiting_human' || details?.kind !== 'crew') return false;
    this.#noted.set(spec.nodeId, {
      kind: 'crew',
      step: spec.step.name,
      nodeId: spec.nodeId,
      crew: details.crew ?? '',
      executionId: details.executionId ?? '',
      pending: details.pending ?? [],
      payload: spec.payload,
    });
    return true;
  }

  /** What step run `nodeId` waits for, when its crew paused in this run. */
  waitingOf(nodeId: string): PendingCrew | undefined {
    return this.#noted.get(nodeId);
  }
}

/** Where a crew kicked off in a step run is kept, and what the step run knows. */
export interface StepCrewScope {
  /** The flow run's store: the crew's runs are kept there unless the crew has a store. */
  store: Store | undefined;
  flowId: string;
  nodeId: string;
  waits: FlowCrewWaits;
}

/**
 * Kicks off, in a step, a crew that could pause for a human: its run is kept (in the crew's store,
 * else the flow's) under an id derived from the flow run, the step run and the kickoff's number in
 * it, so that the step run again goes on with that run instead of starting another — with the
 * answers the flow was resumed with, when it paused. A run that pauses (again) rejects with
 * `awaiting_human`, which pauses the flow on the step.
 */
export async function kickoffPausable(
  crew: Crew,
  options: RunOptions,
  scope: StepCrewScope & { kickoff: number },
  relay: (run: CrewRun) => void,
): Promise<CrewOutput> {
  const store = crew.store ?? scope.store;
  const executionId = options.executionId ?? `${scope.flowId}:${scope.nodeId}:${scope.kickoff}`;
  const head = store === undefined ? undefined : await store.readRun(executionId);
  let out: CrewOutput;
  if (head === undefined || store === undefined) {
    const run = crew.run({ ...options, executionId, store });
    relay(run);
    out = await run.result;
  } else {
    const answer = scope.waits.answerFor(scope.nodeId, executionId);
    if (head.status === 'paused' && answer === undefined) {
      throw AwaitingHumanError.crew(crew.name, executionId, await storedPending(store, executionId));
    }
    const { executionId: _id, inputs: _inputs, ...rest } = options;
    // A crew run answered meanwhile (by crew.resume) goes on, or gives its result, without them.
    const answers =
      answer === undefined || head.status !== 'paused'
        ? {}
        : { approvals: answer.approvals, reviews: answer.reviews };
    out = await crew.resume(executionId, { ...rest, store, ...answers, onRun: relay });
  }
  if (out.status === 'paused') throw AwaitingHumanError.crew(crew.name, executionId, out.pending ?? []);
  return out;
}
