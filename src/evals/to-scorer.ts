import { describeThrown, ScorerFailedError } from '../errors.js';
import type { Score, ScoreInput, Scorer, ScorerLike } from './types.js';

/** What a scorer function may give: a number (0–1), a boolean, a {@link Score}, or a promise of one. */
type ScorerResult = number | boolean | Score | Promise<number | boolean | Score>;

/**
 * A scorer as `evaluate` uses it: a {@link Scorer} as it is (its `name` kept); a function wrapped,
 * named `name`, scoring the run's output (`level: 'run'`), its number (0–1), boolean (1 or 0) or
 * `{ score, reason?, value? }` read as a score. What it throws or rejects with, or a result of another
 * shape (NaN, 1.5, a text), is the score's `scorer_failed` error, with score 0.
 *
 * @example
 * const short = toScorer(({ text }) => text.length < 200, 'short');
 */
export function toScorer(like: ScorerLike, name: string): Scorer {
  if (typeof like !== 'function') return like;
  const score = like as (input: ScoreInput) => ScorerResult;
  return { name, level: 'run', score: (input) => scoreSafely(name, score, input) };
}

/**
 * Runs `scorer` on `input` and never throws: what it throws or rejects with, or a result that is not a
 * score, becomes `{ score: 0, error: { code: 'scorer_failed', message } }`. A result is read as
 * {@link toScorer} reads a function's: a number (0–1), a boolean, or a {@link Score}.
 */
export function runScorer(scorer: Scorer, input: ScoreInput): Promise<Score> {
  return scoreSafely(scorer.name, (i) => scorer.score(i) as ScorerResult, input);
}

/** `score(input)`, read as a score; a throw, a rejection or another shape is the `scorer_failed` score. */
async function scoreSafely(
  name: string,
  score: (input: ScoreInput) => ScorerResult,
  input: ScoreInput,
): Promise<Score> {
  let result: unknown;
  try {
    result = await score(input);
  } catch (error) {
    return failedScore(name, `it threw: ${describeThrown(error)}`, input.node, error);
  }
  return readScore(name, result, input.node);
}

/** A scorer's result as a {@link Score}: its known fields copied, or a `scorer_failed` score. */
export function readScore(name: string, result: unknown, node?: string): Score {
  if (typeof result === 'boolean') return { score: result ? 1 : 0 };
  if (isUnitScore(result)) return { score: result };
  if (typeof result !== 'object' || result === null || !('score' in result)) {
    return failedScore(
      name,
      `it gave ${shown(result)}, not a number from 0 to 1, a boolean or { score }`,
      node,
    );
  }
  const { score, reason, value, error } = result as Record<string, unknown>;
  if (!isUnitScore(score))
    return failedScore(name, `its score ${shown(score)} is not a number from 0 to 1`, node);
  const read: Score = { score };
  if (typeof reason === 'string') read.reason = reason;
  if (typeof value === 'number' && Number.isFinite(value)) read.value = value;
  const failure = error as { code?: unknown; message?: unknown } | undefined;
  if (typeof failure?.code === 'string' && typeof failure.message === 'string') {
    read.error = { code: failure.code, message: failure.message };
  }
  return read;
}

/** The score of a scorer that could not score: 0, with the `scorer_failed` error's code and message. */
export function failedScore(name: string, problem: string, node?: string, cause?: unknown): Score {
  const error = new ScorerFailedError(name, problem, {
    ...(node === undefined ? {} : { node }),
    ...(cause === undefined ? {} : { cause }),
  });
  return { score: 0, error: { code: error.code, message: error.message } };
}

function isUnitScore(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
}

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return describeThrown(value);
}
