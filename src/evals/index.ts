/** Evals: score crews and flows on datasets, compare against a baseline, see what paths no case took. */
export { type CompareOptions, compareEvals } from './compare.js';
export { coverageOf } from './coverage.js';
export { crewaiTable } from './crewai-table.js';
export { loadDataset } from './dataset.js';
export { evaluate } from './evaluate.js';
export { parseEvalReport, readEvalReportFile } from './report-check.js';
export { type EvalReportHead, listEvalReports, readEvalReport, saveEvalReport } from './report-store.js';
export { formatComparison, formatCoverage, formatReport } from './report-text.js';
export {
  type CrewaiTestScorerOptions,
  crewaiTestScorer,
  exactMatch,
  includes,
  type LlmJudgeOptions,
  llmJudge,
  matchesSchema,
  regex,
  type ScorerOptions,
  type SimilarityOptions,
  similarity,
  type TextScorerOptions,
} from './scorers.js';
export { toScorer } from './to-scorer.js';
export type * from './types.js';
