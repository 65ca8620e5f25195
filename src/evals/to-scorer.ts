import type { Scorer, ScorerLike } from './types.js';

/**
 * A scorer as `evaluate` uses it: a {@link Scorer} as it is; a function wrapped, named `name`, its
 * number (0–1), boolean (1 or 0) or `{ score, reason? }` read as a score. What it throws, or a
 * result of another shape, is the score's `scorer_failed` error (score 0).
 */
export function toScorer(like: ScorerLike, name: string): Scorer {
  throw new Error(`toScorer is not built yet (${name}, ${typeof like})`);
}
