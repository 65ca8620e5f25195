import { InvalidOptionError } from '../../errors.js';
import { crewaiTestScorer, llmJudge } from '../../evals/scorers.js';
import type { ScorerLike } from '../../evals/types.js';
import type { Model } from '../../types.js';
import type { Target } from '../load-target.js';

const WHERE = 'statecrew eval';

/** The scorers of an evaluation, as `evaluate` takes them: by name, or a list. */
export type Scorers = Record<string, ScorerLike> | readonly ScorerLike[];

/** What `--judge` asks a flow's judge to weigh. */
export const FLOW_RUBRIC =
  'How well the output does what the inputs ask, and matches the expected output when one is given: complete, correct and clear.';

/** Whether `value` is a scorer: a function, or an object with a `score` method. */
const isScorerLike = (value: unknown): value is ScorerLike =>
  typeof value === 'function' ||
  (typeof value === 'object' && value !== null && typeof (value as { score?: unknown }).score === 'function');

/**
 * The scorers of `statecrew eval`: the target module's export `scorers` (a record of scorers by
 * name, or a list), with the `--judge`'s added (a crew's: `crewaiTestScorer`, named `quality`; a
 * flow's: an `llmJudge` with a generic rubric, named `judge`). `invalid_option` for an export of
 * another shape, and when there is no scorer at all (naming the module as `shown`).
 */
export function scorersOf(target: Target, judge: Model | undefined, shown = target.source.file): Scorers {
  const given = exportedScorers(target);
  const judged =
    judge === undefined
      ? undefined
      : target.kind === 'crew'
        ? crewaiTestScorer({ model: judge })
        : llmJudge({ model: judge, rubric: FLOW_RUBRIC, name: 'judge' });
  if (judged === undefined) {
    if (given !== undefined && (Array.isArray(given) ? given.length : Object.keys(given).length) > 0) {
      return given;
    }
    throw new InvalidOptionError(WHERE, 'scorers', 'some scorer', given, {
      message: `${WHERE}: ${shown} exports no scorers: export scorers (a record or a list of scorers) from it, or pass --judge <model>`,
    });
  }
  if (given === undefined) return [judged];
  return Array.isArray(given) ? [...given, judged] : { ...given, [judged.name]: judged };
}

/** The module's `scorers` export, checked; undefined when it has none. */
function exportedScorers(target: Target): Scorers | undefined {
  const value = target.exports?.scorers;
  if (value === undefined) return undefined;
  const entries = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : undefined;
  if (entries === undefined || !entries.every(isScorerLike)) {
    throw new InvalidOptionError(
      WHERE,
      'scorers',
      'a record or a list of scorers (functions, or objects with a score method)',
      value,
    );
  }
  return value as Scorers;
}
