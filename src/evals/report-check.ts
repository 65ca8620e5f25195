import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InvalidReportError } from '../errors.js';
import type { EvalReport } from './types.js';

const count = z.number().int().min(0);
const usageShape = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  calls: z.number(),
  costUsd: z.number().optional(),
};
const usageSchema = z.looseObject(usageShape);
/** Every model call, and apart what the scorers' judges spent. */
const evalUsageSchema = z.looseObject({ ...usageShape, judge: usageSchema });
const errorSchema = z.looseObject({ code: z.string(), message: z.string() });

/** One scorer's verdict: `score` from 0 to 1. */
const scoreSchema = z.looseObject({
  score: z.number(),
  reason: z.string().optional(),
  value: z.number().optional(),
  error: errorSchema.optional(),
});

/** A scorer's verdict on a run, with each node's for a node scorer. */
const caseScoreSchema = scoreSchema.extend({ nodes: z.record(z.string(), scoreSchema).optional() });

/** The path a run took. */
const runPathSchema = z.looseObject({
  trail: z.array(z.string()),
  routes: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  emitted: z.array(z.string()),
  failed: z.array(z.string()),
});

/** One run of one case. */
const caseResultSchema = z.looseObject({
  caseId: z.string(),
  index: count,
  iteration: z.number().int().min(1),
  inputs: z.record(z.string(), z.unknown()),
  expected: z.unknown().optional(),
  runId: z.string(),
  status: z.enum(['completed', 'failed', 'partial', 'paused', 'error']),
  output: z.unknown(),
  error: errorSchema.optional(),
  scores: z.record(z.string(), caseScoreSchema),
  usage: evalUsageSchema,
  costUsd: z.number().optional(),
  timeMs: z.number().min(0),
  path: runPathSchema,
});

/** A scorer's figures over the evaluation. */
const scorerSummarySchema = z.looseObject({
  mean: z.number(),
  min: z.number(),
  max: z.number(),
  count,
  errors: count,
  nodes: z.record(z.string(), z.looseObject({ mean: z.number(), count })).optional(),
});

/** The evaluation's figures. */
const summarySchema = z.looseObject({
  cases: count,
  runs: count,
  statuses: z.record(z.string(), count),
  scorers: z.record(z.string(), scorerSummarySchema),
  usage: evalUsageSchema,
  costUsd: z.number().optional(),
  timeMs: z.looseObject({ p50: z.number(), p95: z.number(), mean: z.number(), total: z.number() }),
});

const coveredSchema = z.looseObject({
  covered: z.array(z.string()),
  uncovered: z.array(z.string()),
  ratio: z.number(),
});

/** What the runs exercised of the target. */
const coverageSchema = z.looseObject({
  kind: z.enum(['crew', 'flow']),
  paths: coveredSchema.extend({ total: count }),
  routes: coveredSchema,
  failureHandlers: coveredSchema,
  timeouts: coveredSchema,
  nodes: coveredSchema,
  edges: z.array(
    z.looseObject({ from: z.string(), to: z.string(), label: z.string().optional(), taken: count }),
  ),
  truncated: z.boolean(),
});

/**
 * An {@link EvalReport} as zod checks it (format 1): the fields readers need, unknown extra fields
 * passed through. The server documents its report routes with it.
 */
export const evalReportSchema = z.looseObject({
  format: z.literal(1),
  id: z.string().min(1),
  target: z.looseObject({ kind: z.enum(['crew', 'flow']), name: z.string() }),
  startedAt: z.iso.datetime({ offset: true }),
  iterations: z.number().int().min(1),
  scorers: z.array(z.looseObject({ name: z.string(), level: z.enum(['run', 'node']) })),
  cases: z.array(caseResultSchema),
  summary: summarySchema,
  coverage: coverageSchema,
});

/** A zod issue's path as people write it: `cases[2].scores`. */
function fieldOf(path: readonly PropertyKey[]): string {
  let field = '';
  for (const part of path) {
    if (typeof part === 'number') field += `[${part}]`;
    else field += field === '' ? String(part) : `.${String(part)}`;
  }
  return field;
}

/** `value` as a report `evaluate` wrote (a baseline read from JSON, say); throws `invalid_report` naming `where` and the field. */
export function parseEvalReport(value: unknown, where: string): EvalReport {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidReportError(where, `is not an object (${value === null ? 'null' : typeof value})`);
  }
  const format = (value as { format?: unknown }).format;
  if (format !== 1) {
    const problem = `its format is ${JSON.stringify(format) ?? 'missing'}, not 1 (a report evaluate writes)`;
    throw new InvalidReportError(where, problem, 'format');
  }
  const parsed = evalReportSchema.safeParse(value);
  if (parsed.success) return parsed.data as EvalReport;
  const [issue] = parsed.error.issues;
  const field = fieldOf(issue?.path ?? []);
  const at = field === '' ? '' : `${field}: `;
  throw new InvalidReportError(where, `${at}${issue?.message ?? 'does not fit'}`, field || undefined);
}

/**
 * The report in JSON file `file` (a CLI's `--baseline`): `invalid_report` naming the file when it is
 * missing, not JSON, or not a report of format 1 (the field named).
 */
export async function readEvalReportFile(file: string): Promise<EvalReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(error)})`;
    throw new InvalidReportError(file, problem);
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidReportError(file, `is not JSON (${(error as Error).message})`);
  }
  return parseEvalReport(value, file);
}
