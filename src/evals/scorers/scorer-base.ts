import { describeThrown, isStatecrewError, ScorerFailedError } from '../../errors.js';
import type { Score, ScoreInput, Scorer } from '../types.js';
import type { ScorerBase } from './options.js';

/** Makes the error of a scorer that cannot score this input: named after the scorer and the node. */
export type CannotScore = (problem: string, cause?: unknown) => ScorerFailedError;

/** How a built-in scorer scores one input; it throws (`cannot`'s error, say) when it cannot. */
export type ScoreFn = (input: ScoreInput, cannot: CannotScore) => Score | Promise<Score>;

/** What stops the evaluation rather than one score: its budget spent, or it was aborted. */
function stopsEvaluation(error: unknown, input: ScoreInput): boolean {
  return (
    input.signal.aborted || isStatecrewError(error, 'budget_exceeded') || isStatecrewError(error, 'aborted')
  );
}

/** The score of an input that could not be scored: 0, with the scorer's `scorer_failed` error. */
function failedScore(error: unknown, input: ScoreInput, cannot: CannotScore): Score {
  if (stopsEvaluation(error, input)) throw error;
  const failure = isStatecrewError(error, 'scorer_failed') ? error : cannot(describeThrown(error), error);
  return { score: 0, error: { code: failure.code, message: failure.message } };
}

/**
 * A {@link Scorer} named and placed as `base` says, scoring with `score`: what it throws becomes a
 * score of 0 with a `scorer_failed` error, except a budget stop and an abort, which propagate.
 */
export function buildScorer(base: ScorerBase, score: ScoreFn): Scorer {
  const { name, level, nodes } = base;
  return {
    name,
    level,
    ...(nodes === undefined ? {} : { nodes }),
    score(input: ScoreInput): Score | Promise<Score> {
      const cannot: CannotScore = (problem, cause) =>
        new ScorerFailedError(name, problem, {
          ...(input.node === undefined ? {} : { node: input.node }),
          ...(cause === undefined ? {} : { cause }),
        });
      try {
        const scored = score(input, cannot);
        return scored instanceof Promise
          ? scored.catch((error) => failedScore(error, input, cannot))
          : scored;
      } catch (error) {
        return failedScore(error, input, cannot);
      }
    },
  };
}
