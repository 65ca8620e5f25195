import { addEvalUsage, caseUsage } from './case-usage.js';
import { meanOf, nearestRank } from './percentiles.js';
import type { CaseScore, EvalCaseResult, EvalSummary, Score, Scorer, ScorerSummary } from './types.js';

/**
 * The evaluation's figures over its runs: how many ended each way; each scorer's mean, min, max,
 * count and errors (a node scorer's over every node it scored, and per node); the usage and cost; and
 * the runs' time (p50 and p95 by nearest rank, mean, total) — of the runs that ran, not of a case
 * that errored before (or instead of) running.
 */
export function summarize(
  cases: number,
  results: readonly EvalCaseResult[],
  scorers: readonly Scorer[],
): EvalSummary {
  const statuses: EvalSummary['statuses'] = { completed: 0, failed: 0, partial: 0, paused: 0, error: 0 };
  const usage = caseUsage();
  for (const result of results) {
    statuses[result.status] += 1;
    addEvalUsage(usage, result.usage);
  }
  const times = results.filter((r) => r.status !== 'error').map((r) => r.timeMs);
  const summary: EvalSummary = {
    cases,
    runs: results.length,
    statuses,
    scorers: Object.fromEntries(scorers.map((s) => [s.name, scorerSummary(s, results)])),
    usage,
    timeMs: {
      p50: nearestRank(times, 50),
      p95: nearestRank(times, 95),
      mean: meanOf(times),
      total: times.reduce((sum, t) => sum + t, 0),
    },
  };
  if (usage.costUsd !== undefined) summary.costUsd = usage.costUsd;
  return summary;
}

/** One scorer's figures: over every score it gave (a node scorer's: each node's). */
function scorerSummary(scorer: Scorer, results: readonly EvalCaseResult[]): ScorerSummary {
  const given = results.map((r) => r.scores[scorer.name]).filter((s): s is CaseScore => s !== undefined);
  const scores = given.flatMap((s): Score[] => (s.nodes === undefined ? [s] : Object.values(s.nodes)));
  const values = scores.map((s) => s.score);
  const summary: ScorerSummary = {
    mean: meanOf(values),
    min: values.length === 0 ? 0 : Math.min(...values),
    max: values.length === 0 ? 0 : Math.max(...values),
    count: values.length,
    errors: scores.filter((s) => s.error !== undefined).length,
  };
  if ((scorer.level ?? 'run') === 'node') summary.nodes = nodeMeans(given);
  return summary;
}

/** A node scorer's mean and count per task or step. */
function nodeMeans(given: readonly CaseScore[]): Record<string, { mean: number; count: number }> {
  const byNode = new Map<string, number[]>();
  for (const score of given) {
    for (const [node, s] of Object.entries(score.nodes ?? {}))
      byNode.set(node, [...(byNode.get(node) ?? []), s.score]);
  }
  return Object.fromEntries(
    [...byNode].map(([node, values]) => [node, { mean: meanOf(values), count: values.length }]),
  );
}
