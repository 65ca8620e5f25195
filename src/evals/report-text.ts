import type { EvalComparison, EvalCoverage, EvalReport } from './types.js';

/** A report as text: the summary (scorers' means per node, status counts, cost, p50/p95 time) and the coverage. */
export function formatReport(report: EvalReport): string {
  throw new Error(`formatReport is not built yet (${report.id})`);
}

/** Coverage as text: each kind's ratio, and every path, route, handler, timeout and node no run took. */
export function formatCoverage(coverage: EvalCoverage): string {
  throw new Error(`formatCoverage is not built yet (${coverage.kind})`);
}

/** A comparison as text: each scorer's delta and the cases that regressed. */
export function formatComparison(comparison: EvalComparison): string {
  throw new Error(`formatComparison is not built yet (${comparison.scorers.length})`);
}
