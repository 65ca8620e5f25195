import { z } from 'zod';
import { InvalidOptionError } from '../errors.js';
import { fn, integer, text } from '../options/fields.js';
import { checkedBy, option, unchecked } from '../options/option.js';
import { parseOptions } from '../options/parse.js';
import type { Crew } from '../runtime/crew/crew.js';
import { isCrew, isFlow } from '../runtime/definition-kind.js';
import { type Budget, checkBudget } from '../runtime/engine/budget.js';
import type { Flow } from '../runtime/flow/flow.js';
import { isStore, type Store } from '../stores/store.js';
import { toScorer } from './to-scorer.js';
import type { Dataset, EvalCaseResult, EvaluateOptions, Scorer, ScorerLike } from './types.js';

const WHERE = 'evaluate';

const evaluateOptionsSchema = z.strictObject({
  target: option<Crew | Flow<object>>('a Crew or a Flow', (v) => isCrew(v) || isFlow(v)),
  dataset: unchecked<Dataset>(),
  scorers: option<EvaluateOptions['scorers']>(
    'a non-empty list or record of scorers',
    (v) => typeof v === 'object' && v !== null && Object.keys(v).length > 0,
  ),
  iterations: integer(1).default(1),
  concurrency: integer(1).default(4),
  store: option<Store>('a Store', isStore).optional(),
  budget: checkedBy<Budget>('{ maxTokens?, maxCostUsd? }', checkBudget).optional(),
  id: text().optional(),
  signal: option<AbortSignal>('an AbortSignal', (v) => v instanceof AbortSignal).optional(),
  onCase: fn<(result: EvalCaseResult) => void>().optional(),
});

/** `evaluate`'s options, checked, with their defaults, and the scorers named. */
export interface CheckedEvaluateOptions {
  target: { kind: 'crew'; crew: Crew } | { kind: 'flow'; flow: Flow<object> };
  dataset: Dataset;
  scorers: Scorer[];
  iterations: number;
  concurrency: number;
  store: Store | undefined;
  budget: Budget | undefined;
  id: string | undefined;
  signal: AbortSignal | undefined;
  onCase: ((result: EvalCaseResult) => void) | undefined;
}

/**
 * `evaluate`'s options, checked before anything runs: `invalid_option` for a target that is neither a
 * crew nor a flow, an `iterations` or `concurrency` that is not a positive integer, no scorer, a scorer
 * that is neither a function nor a `{ name, score }`, or two scorers of one name.
 */
export function checkEvaluateOptions(options: EvaluateOptions): CheckedEvaluateOptions {
  const parsed = parseOptions(evaluateOptionsSchema, WHERE, options);
  const target = isFlow(parsed.target)
    ? { kind: 'flow' as const, flow: parsed.target }
    : { kind: 'crew' as const, crew: parsed.target as Crew };
  return {
    target,
    dataset: parsed.dataset,
    scorers: namedScorers(parsed.scorers),
    iterations: parsed.iterations,
    concurrency: parsed.concurrency,
    store: parsed.store,
    budget: parsed.budget,
    id: parsed.id,
    signal: parsed.signal,
    onCase: parsed.onCase,
  };
}

/**
 * The scorers, named: a record's by their key, a list's by their `name` (a function's by its own
 * name, else `scorer1`, `scorer2`… by its place); two of one name are refused.
 */
function namedScorers(given: EvaluateOptions['scorers']): Scorer[] {
  const entries: [string, ScorerLike, string | undefined][] = Array.isArray(given)
    ? (given as readonly ScorerLike[]).map((like, i) => [`scorers[${i}]`, like, undefined])
    : Object.entries(given as Record<string, ScorerLike>).map(([key, like]) => [`scorers.${key}`, like, key]);
  const scorers = entries.map(([where, like, key], index) => {
    checkScorerLike(where, like);
    const name = key ?? (typeof like === 'function' ? like.name || `scorer${index + 1}` : like.name);
    return named(toScorer(like, name), name);
  });
  const seen = new Set<string>();
  for (const scorer of scorers) {
    if (seen.has(scorer.name)) {
      throw new InvalidOptionError(WHERE, 'scorers', 'scorers with distinct names', scorer.name, {
        message: `${WHERE}: two scorers are named "${scorer.name}"; give one another name (its \`name\` option, or a record key)`,
      });
    }
    seen.add(scorer.name);
  }
  return scorers;
}

/** Refuses what is neither a scorer function nor a `{ name, score, level?, nodes? }` scorer. */
function checkScorerLike(where: string, like: unknown): void {
  if (typeof like === 'function') return;
  const scorer = like as Partial<Scorer> | null;
  const expected = 'a function or a scorer { name, score, level?, nodes? }';
  if (typeof scorer !== 'object' || scorer === null || typeof scorer.score !== 'function') {
    throw new InvalidOptionError(WHERE, where, expected, like);
  }
  if (typeof scorer.name !== 'string' || scorer.name.trim() === '') {
    throw new InvalidOptionError(WHERE, `${where}.name`, 'a non-empty string', scorer.name);
  }
  if (scorer.level !== undefined && scorer.level !== 'run' && scorer.level !== 'node') {
    throw new InvalidOptionError(WHERE, `${where}.level`, "'run' or 'node'", scorer.level);
  }
  const { nodes } = scorer;
  if (nodes !== undefined && !(Array.isArray(nodes) && nodes.every((n) => typeof n === 'string'))) {
    throw new InvalidOptionError(WHERE, `${where}.nodes`, 'a list of task or step names', nodes);
  }
}

/** `scorer` under `name` (a record's key), its level, nodes and scoring kept. */
function named(scorer: Scorer, name: string): Scorer {
  if (scorer.name === name) return scorer;
  return {
    name,
    ...(scorer.level === undefined ? {} : { level: scorer.level }),
    ...(scorer.nodes === undefined ? {} : { nodes: scorer.nodes }),
    score: (input) => scorer.score(input),
  };
}
