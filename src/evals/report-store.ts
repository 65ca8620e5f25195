import type { Store } from '../stores/store.js';
import type { EvalReport } from './types.js';

/** A kept report's head, as a listing shows it. */
export interface EvalReportHead {
  id: string;
  target: EvalReport['target'];
  startedAt: string;
  runs: number;
  /** Each scorer's mean. */
  means: Record<string, number>;
  coverage: number;
}

/** Keeps `report` in `store` under its id (a report kept again replaces it). */
export async function saveEvalReport(store: Store, report: EvalReport): Promise<void> {
  throw new Error(`saveEvalReport is not built yet (${String(store)}, ${report.id})`);
}

/** The report kept under `id`, or undefined. Throws `invalid_report` for a record that is not one. */
export async function readEvalReport(store: Store, id: string): Promise<EvalReport | undefined> {
  throw new Error(`readEvalReport is not built yet (${String(store)}, ${id})`);
}

/** The kept reports' heads, newest first. */
export async function listEvalReports(store: Store): Promise<EvalReportHead[]> {
  throw new Error(`listEvalReports is not built yet (${String(store)})`);
}
