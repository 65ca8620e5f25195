import type { EvalComparison, EvalReport } from '../../evals/types.js';

/** What makes `statecrew eval` fail: a mean under `--fail-under`, a fall against `--baseline`. */
export interface VerdictOptions {
  failUnder?: number | undefined;
  /** How far a scorer's mean may fall against the baseline. @default 0 */
  tolerance?: number | undefined;
}

const shown = (value: number) => String(Number(value.toFixed(4)));

/**
 * Why the evaluation fails, one line each (none: it passes): each scorer whose mean is under
 * `failUnder`; with a comparison, each scorer whose mean fell by more than `tolerance` and each case
 * that regressed.
 */
export function verdictOf(
  report: EvalReport,
  comparison: EvalComparison | undefined,
  options: VerdictOptions,
): string[] {
  const reasons: string[] = [];
  const { failUnder } = options;
  if (failUnder !== undefined) {
    for (const [name, summary] of Object.entries(report.summary.scorers)) {
      if (summary.mean < failUnder) {
        reasons.push(`scorer "${name}" scored ${shown(summary.mean)}, under --fail-under ${failUnder}`);
      }
    }
  }
  if (comparison === undefined) return reasons;
  const tolerance = options.tolerance ?? 0;
  for (const delta of comparison.scorers) {
    if (delta.delta < -tolerance) {
      reasons.push(
        `scorer "${delta.scorer}" fell from ${shown(delta.baseline)} to ${shown(delta.candidate)} against the baseline (${shown(delta.delta)}, tolerance ${tolerance})`,
      );
    }
  }
  for (const fall of comparison.regressed) {
    reasons.push(
      `case "${fall.caseId}" regressed on "${fall.scorer}": ${shown(fall.baseline)} → ${shown(fall.candidate)}`,
    );
  }
  return reasons;
}
