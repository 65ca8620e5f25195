import { InvalidOptionError } from '../../errors.js';
import type { ApprovalAnswer, ReviewAnswer } from '../../types.js';

/** The answers a resume brings to what a paused crew run waits for, checked for shape. */
export interface HumanAnswers {
  /** By the `callId` of a tool call waiting for approval. */
  approvals: Readonly<Record<string, ApprovalAnswer>>;
  /** By the node id of a task run whose output waits for review. */
  reviews: Readonly<Record<string, ReviewAnswer>>;
}

/**
 * The answers given to a resume, checked for shape (`invalid_option`): each approval `{ approve:
 * true }` or `{ approve: false, feedback? }`, each review `{ approve: true }` or `{ approve: false,
 * feedback }`. Undefined when none was given.
 */
export function readAnswers(where: string, approvals: unknown, reviews: unknown): HumanAnswers | undefined {
  const read = <A>(option: string, given: unknown, feedbackRequired: boolean): Record<string, A> => {
    if (given === undefined) return {};
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      throw new InvalidOptionError(where, option, 'an object of answers by id', given);
    }
    for (const [id, answer] of Object.entries(given))
      checkAnswer(where, `${option}.${id}`, answer, feedbackRequired);
    return { ...(given as Record<string, A>) };
  };
  const answers: HumanAnswers = {
    approvals: read<ApprovalAnswer>('approvals', approvals, false),
    reviews: read<ReviewAnswer>('reviews', reviews, true),
  };
  const none = Object.keys(answers.approvals).length === 0 && Object.keys(answers.reviews).length === 0;
  return none ? undefined : answers;
}

function checkAnswer(where: string, option: string, answer: unknown, feedbackRequired: boolean): void {
  const given = answer as { approve?: unknown; feedback?: unknown } | null;
  const expected = feedbackRequired
    ? '{ approve: true } or { approve: false, feedback: string }'
    : '{ approve: true } or { approve: false, feedback?: string }';
  const shaped =
    typeof given === 'object' &&
    given !== null &&
    typeof given.approve === 'boolean' &&
    (given.feedback === undefined
      ? !(feedbackRequired && given.approve === false)
      : typeof given.feedback === 'string');
  if (!shaped) throw new InvalidOptionError(where, option, expected, answer);
}
