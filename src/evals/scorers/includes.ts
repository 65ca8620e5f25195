import { InvalidOptionError } from '../../errors.js';
import type { Score, ScoreInput, Scorer } from '../types.js';
import { checkScorerOptions, type TextScorerOptions } from './options.js';
import { buildScorer, type CannotScore } from './scorer-base.js';
import { quote } from './text.js';

const isTexts = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.length > 0 && value.every((text) => typeof text === 'string');

/** The texts given when the scorer was built, checked: a text or a non-empty list of texts. */
function givenTexts(texts: unknown): readonly string[] | undefined {
  if (texts === undefined) return undefined;
  if (typeof texts === 'string') return [texts];
  if (isTexts(texts)) return texts;
  throw new InvalidOptionError('includes', 'texts', 'a text or a non-empty list of texts', texts);
}

/** The texts to look for: those given, else `expected` (a text or a list of texts). */
function textsFor(input: ScoreInput, given: readonly string[] | undefined, cannot: CannotScore) {
  if (given !== undefined) return given;
  const { expected } = input;
  if (typeof expected === 'string') return [expected];
  if (isTexts(expected)) return expected;
  const what =
    expected === undefined ? 'no expected output' : 'the expected output is not a text or a list of texts';
  throw cannot(`${what}: nothing to look for`);
}

function scoreIncludes(input: ScoreInput, texts: readonly string[], caseSensitive: boolean): Score {
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const haystack = fold(input.text);
  const missing = texts.filter((text) => !haystack.includes(fold(text)));
  const score = (texts.length - missing.length) / texts.length;
  if (missing.length === 0) return { score, reason: `contains all ${texts.length} expected texts` };
  const named = missing.map((text) => quote(text, 60)).join(', ');
  return { score, reason: `missing ${missing.length} of ${texts.length}: ${named}` };
}

/**
 * The share of `texts` (default: the case's `expected`, a text or a list of texts) that the output's
 * text contains, from 0 to 1; the reason names the missing ones. Case-sensitive unless
 * `caseSensitive: false`.
 *
 * @example
 * includes(['Paris', 'France'], { caseSensitive: false })
 */
export function includes(texts?: string | readonly string[], options: TextScorerOptions = {}): Scorer {
  const given = givenTexts(texts);
  const { options: checked, base } = checkScorerOptions('includes', 'text', options);
  const caseSensitive = checked.caseSensitive ?? true;
  return buildScorer(base, (input, cannot) =>
    scoreIncludes(input, textsFor(input, given, cannot), caseSensitive),
  );
}
