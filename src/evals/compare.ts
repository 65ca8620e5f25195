import type { EvalComparison, EvalCoverage, EvalReport, RegressedCase, ScorerDelta } from './types.js';

/** Options of {@link compareEvals}. */
export interface CompareOptions {
  /** A case's score must fall (or rise) by more than this to count as regressed (or improved). @default 0 */
  tolerance?: number;
}

/**
 * The one coverage ratio a comparison reads: the mean of the paths, routes, failure handlers,
 * timeouts and nodes ratios (a kind with nothing to cover counts 1).
 */
export function coverageRatio(coverage: EvalCoverage): number {
  const { paths, routes, failureHandlers, timeouts, nodes } = coverage;
  return (paths.ratio + routes.ratio + failureHandlers.ratio + timeouts.ratio + nodes.ratio) / 5;
}

/** Each case's mean score per scorer over its iterations: caseId → scorer → mean. */
function caseMeans(report: EvalReport): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, { sum: number; count: number }>>();
  for (const result of report.cases) {
    const byScorer = sums.get(result.caseId) ?? new Map<string, { sum: number; count: number }>();
    sums.set(result.caseId, byScorer);
    for (const [scorer, score] of Object.entries(result.scores)) {
      const seen = byScorer.get(scorer) ?? { sum: 0, count: 0 };
      byScorer.set(scorer, { sum: seen.sum + score.score, count: seen.count + 1 });
    }
  }
  const means = new Map<string, Map<string, number>>();
  for (const [caseId, byScorer] of sums) {
    means.set(caseId, new Map([...byScorer].map(([scorer, s]) => [scorer, s.sum / s.count])));
  }
  return means;
}

/** One scorer's delta, with its nodes both reports scored. */
function scorerDelta(scorer: string, baseline: EvalReport, candidate: EvalReport): ScorerDelta {
  const b = baseline.summary.scorers[scorer];
  const c = candidate.summary.scorers[scorer];
  const delta: ScorerDelta = {
    scorer,
    baseline: b?.mean ?? 0,
    candidate: c?.mean ?? 0,
    delta: (c?.mean ?? 0) - (b?.mean ?? 0),
  };
  const shared = Object.keys(b?.nodes ?? {}).filter((node) => c?.nodes?.[node] !== undefined);
  if (shared.length === 0) return delta;
  delta.nodes = Object.fromEntries(
    shared.map((node) => {
      const before = b?.nodes?.[node]?.mean ?? 0;
      const after = c?.nodes?.[node]?.mean ?? 0;
      return [node, { baseline: before, candidate: after, delta: after - before }];
    }),
  );
  return delta;
}

/** Cases in both reports whose mean score for a compared scorer moved by more than `tolerance`. */
function movedCases(
  baseline: EvalReport,
  candidate: EvalReport,
  scorers: readonly string[],
  tolerance: number,
) {
  const before = caseMeans(baseline);
  const after = caseMeans(candidate);
  const regressed: RegressedCase[] = [];
  const improved: RegressedCase[] = [];
  for (const [caseId, scores] of before) {
    for (const scorer of scorers) {
      const b = scores.get(scorer);
      const c = after.get(caseId)?.get(scorer);
      if (b === undefined || c === undefined) continue;
      const moved = { caseId, scorer, baseline: b, candidate: c, delta: c - b };
      if (c - b < -tolerance) regressed.push(moved);
      else if (c - b > tolerance) improved.push(moved);
    }
  }
  return { regressed, improved, before, after };
}

/**
 * How `candidate` moved against `baseline`: each scorer's mean (and per node) for the scorers both
 * have (one only one report has is listed in `unmatchedScorers`, not compared); cases matched by
 * `caseId` (each the mean over its iterations), `regressed` those whose score for a scorer fell by
 * more than `tolerance`, `improved` those that rose by more; cases `added` (only in the candidate)
 * and `removed`; the coverage ratio ({@link coverageRatio}); time p50; cost when both have it.
 *
 * @example
 * compareEvals(baseline, candidate, { tolerance: 0.05 }).regressed; // [{ caseId: 'refund', scorer: 'exact', … }]
 */
export function compareEvals(
  baseline: EvalReport,
  candidate: EvalReport,
  options: CompareOptions = {},
): EvalComparison {
  const tolerance = options.tolerance ?? 0;
  const inBaseline = Object.keys(baseline.summary.scorers);
  const inCandidate = Object.keys(candidate.summary.scorers);
  const shared = inBaseline.filter((name) => inCandidate.includes(name));
  const { regressed, improved, before, after } = movedCases(baseline, candidate, shared, tolerance);
  const b = coverageRatio(baseline.coverage);
  const c = coverageRatio(candidate.coverage);
  const comparison: EvalComparison = {
    scorers: shared.map((name) => scorerDelta(name, baseline, candidate)),
    regressed,
    improved,
    added: [...after.keys()].filter((id) => !before.has(id)),
    removed: [...before.keys()].filter((id) => !after.has(id)),
    coverage: { baseline: b, candidate: c, delta: c - b },
    timeMs: { baseline: baseline.summary.timeMs.p50, candidate: candidate.summary.timeMs.p50 },
  };
  const unmatched = {
    baseline: inBaseline.filter((name) => !shared.includes(name)),
    candidate: inCandidate.filter((name) => !shared.includes(name)),
  };
  if (unmatched.baseline.length + unmatched.candidate.length > 0) comparison.unmatchedScorers = unmatched;
  const [costBefore, costAfter] = [baseline.summary.costUsd, candidate.summary.costUsd];
  if (costBefore !== undefined && costAfter !== undefined) {
    comparison.costUsd = { baseline: costBefore, candidate: costAfter };
  }
  return comparison;
}
