import { z } from 'zod';
import { InvalidReportError } from '../errors.js';
import type { JsonValue, Store } from '../stores/store.js';
import { parseEvalReport } from './report-check.js';
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

/** The collection reports are kept in, and the keys of a report's two records. */
const COLLECTION = 'eval_reports';
const REPORT_KEY = 'report';
const HEAD_KEY = 'head';

/** A head as a listing checks it. */
const headSchema = z.object({
  id: z.string(),
  target: z.object({ kind: z.enum(['crew', 'flow']), name: z.string() }),
  startedAt: z.string(),
  runs: z.number(),
  means: z.record(z.string(), z.number()),
  coverage: z.number(),
});

/** The head a listing shows of `report`. */
export function headOf(report: EvalReport): EvalReportHead {
  const means = Object.fromEntries(
    Object.entries(report.summary.scorers).map(([name, summary]) => [name, summary.mean]),
  );
  return {
    id: report.id,
    target: { kind: report.target.kind, name: report.target.name },
    startedAt: report.startedAt,
    runs: report.summary.runs,
    means,
    coverage: report.coverage.paths.ratio,
  };
}

/** `report` as JSON keeps it, checked as a reader will check it (`invalid_report` naming the field). */
function asStored(report: EvalReport): { value: JsonValue; stored: EvalReport } {
  const where = `"${String((report as { id?: unknown } | null)?.id)}" (to be kept)`;
  let text: string | undefined;
  try {
    text = JSON.stringify(report);
  } catch (error) {
    throw new InvalidReportError(where, `is not JSON (${(error as Error).message})`);
  }
  const value = text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  return { value: value as JsonValue, stored: parseEvalReport(value, where) };
}

/**
 * Keeps `report` in `store` under its id (a report kept again replaces it): the whole report first,
 * then its head, so a listing (which reads heads) never finds a head without its report. A report
 * that is not one → `invalid_report`; a store that refuses the write → its error (`store_unavailable`).
 */
export async function saveEvalReport(store: Store, report: EvalReport): Promise<void> {
  const { value, stored } = asStored(report);
  await store.put(COLLECTION, stored.id, REPORT_KEY, value);
  await store.put(COLLECTION, stored.id, HEAD_KEY, headOf(stored) as unknown as JsonValue);
}

/** The report kept under `id`, or undefined. Throws `invalid_report` for a record that is not one. */
export async function readEvalReport(store: Store, id: string): Promise<EvalReport | undefined> {
  const record = await store.get(COLLECTION, id, REPORT_KEY);
  if (record === undefined) return undefined;
  return parseEvalReport(record.value, `"${id}" in the ${store.kind} store`);
}

/** The head kept under `id` (undefined while only its report is written); `invalid_report` when it is not one. */
async function readHead(store: Store, id: string): Promise<EvalReportHead | undefined> {
  const record = await store.get(COLLECTION, id, HEAD_KEY);
  if (record === undefined) return undefined;
  const parsed = headSchema.safeParse(record.value);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = issue?.path.join('.') ?? '';
  throw new InvalidReportError(
    `"${id}" in the ${store.kind} store (its head)`,
    `${field}: ${issue?.message ?? 'does not fit'}`,
    field,
  );
}

/** The kept reports' heads, newest `startedAt` first (then by id). */
export async function listEvalReports(store: Store): Promise<EvalReportHead[]> {
  const ids = await store.executions(COLLECTION);
  const heads = await Promise.all(ids.map((id) => readHead(store, id)));
  return heads.filter((head): head is EvalReportHead => head !== undefined).sort((a, b) => byNewest(a, b));
}

/** Newest `startedAt` first, then by id; times compared as instants (an offset is honoured). */
function byNewest(a: EvalReportHead, b: EvalReportHead): number {
  const at = (head: EvalReportHead) => Date.parse(head.startedAt);
  const delta = (at(b) || 0) - (at(a) || 0);
  if (delta !== 0) return delta;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
