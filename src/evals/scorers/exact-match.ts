import type { Score, ScoreInput, Scorer } from '../types.js';
import { checkScorerOptions, type TextScorerOptions } from './options.js';
import { buildScorer, type CannotScore } from './scorer-base.js';
import { parseJson, quote, stableJson } from './text.js';

/** The output as `expected` compares with it: its text for a text, else its value (JSON text parsed). */
function compared(input: ScoreInput, caseSensitive: boolean): { actual: string; wanted: string } {
  const { expected } = input;
  if (typeof expected === 'string') {
    const fold = (text: string) => (caseSensitive ? text.trim() : text.trim().toLowerCase());
    return { actual: fold(input.text), wanted: fold(expected) };
  }
  const parsed = typeof input.output === 'string' ? parseJson(input.output) : undefined;
  const value = parsed?.ok ? parsed.value : input.output;
  return { actual: stableJson(value), wanted: stableJson(expected) };
}

function scoreExact(input: ScoreInput, cannot: CannotScore, caseSensitive: boolean): Score {
  if (input.expected === undefined) throw cannot('no expected output to compare with');
  const { actual, wanted } = compared(input, caseSensitive);
  if (actual === wanted) return { score: 1, reason: 'equals the expected output' };
  return { score: 0, reason: `expected ${quote(wanted, 100)}, got ${quote(actual, 100)}` };
}

/**
 * 1 when the output equals `expected`, else 0: texts compared trimmed (case-insensitive with
 * `caseSensitive: false`), other values as JSON with sorted keys (an output that is JSON text is
 * parsed first). No `expected` is a `scorer_failed` error.
 *
 * @example
 * evaluate({ target: crew, dataset, scorers: [exactMatch({ caseSensitive: false })] });
 */
export function exactMatch(options: TextScorerOptions = {}): Scorer {
  const { options: checked, base } = checkScorerOptions('exactMatch', 'text', options);
  const caseSensitive = checked.caseSensitive ?? true;
  return buildScorer(base, (input, cannot) => scoreExact(input, cannot, caseSensitive));
}
