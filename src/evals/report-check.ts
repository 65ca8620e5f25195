import type { EvalReport } from './types.js';

/** `value` as a report `evaluate` wrote (a baseline read from JSON, say); throws `invalid_report` naming `where` and the field. */
export function parseEvalReport(value: unknown, where: string): EvalReport {
  throw new Error(`parseEvalReport is not built yet (${typeof value}, ${where})`);
}
