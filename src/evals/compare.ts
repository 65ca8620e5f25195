import type { EvalComparison, EvalReport } from './types.js';

/** Options of {@link compareEvals}. */
export interface CompareOptions {
  /** A case's score must fall by more than this to count as regressed. @default 0 */
  tolerance?: number;
}

/**
 * How `candidate` moved against `baseline`: each scorer's mean (and per node), the cases whose score
 * fell (or rose), cases added or removed, coverage, time and cost.
 */
export function compareEvals(
  baseline: EvalReport,
  candidate: EvalReport,
  options: CompareOptions = {},
): EvalComparison {
  throw new Error(`compareEvals is not built yet (${baseline.id}, ${candidate.id}, ${String(options)})`);
}
