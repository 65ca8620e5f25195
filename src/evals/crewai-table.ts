import type { EvalReport } from './types.js';

/**
 * CrewAI's `crewai test` table: a row per task (`Task 1`, …) with its score (1–10) in each run
 * (`Run 1`, …), the average and the task's agents; then `Crew` (each run's mean) and
 * `Execution Time (s)`. Reads the node scores of `scorer` (default: the report's first node scorer).
 */
export function crewaiTable(report: EvalReport, scorer?: string): string {
  throw new Error(`crewaiTable is not built yet (${report.id}, ${String(scorer)})`);
}
