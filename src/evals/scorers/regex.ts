import { InvalidOptionError } from '../../errors.js';
import type { Scorer } from '../types.js';
import { checkScorerOptions, type ScorerOptions } from './options.js';
import { buildScorer } from './scorer-base.js';
import { quote } from './text.js';

/** `pattern` as one expression, compiled once; without `g` and `y`, whose `lastIndex` would carry between tests. */
function compiled(pattern: unknown): RegExp {
  if (pattern instanceof RegExp) return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  if (typeof pattern !== 'string') {
    throw new InvalidOptionError('regex', 'pattern', 'a RegExp or a regular expression as text', pattern);
  }
  try {
    return new RegExp(pattern);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InvalidOptionError('regex', 'pattern', 'a valid regular expression', pattern, {
      message: `regex: option "pattern" ${JSON.stringify(pattern)} is not a valid regular expression: ${why}`,
    });
  }
}

/**
 * 1 when the output's text matches `pattern`, else 0; the reason says which and what matched. A
 * pattern given as text is compiled when the scorer is built: a bad one is `invalid_option` then.
 *
 * @example
 * regex(/\b\d{4}-\d{2}-\d{2}\b/, { name: 'has a date' })
 */
export function regex(pattern: RegExp | string, options: ScorerOptions = {}): Scorer {
  const expression = compiled(pattern);
  const { base } = checkScorerOptions('regex', 'plain', options);
  return buildScorer(base, (input) => {
    const match = expression.exec(input.text);
    if (match === null) return { score: 0, reason: `does not match ${String(expression)}` };
    return { score: 1, reason: `matches ${String(expression)}: ${quote(match[0], 80)}` };
  });
}
