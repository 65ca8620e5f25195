import type { CaseScore, EvalCaseResult, EvalReport } from '../../src/evals/types.js';

const noUsage = () => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 });

/** A run of a report: `quality` scored per task from `values` (undefined: the task has no score). */
export function fakeCase(
  index: number,
  iteration: number,
  values: Record<string, number | undefined>,
  timeMs: number,
  inputs: Record<string, unknown> = { topic: 'AI' },
): EvalCaseResult {
  const nodes = Object.fromEntries(
    Object.entries(values).flatMap(([task, value]) =>
      value === undefined ? [] : [[task, { score: value / 10, value }]],
    ),
  );
  const known = Object.values(nodes).map((s) => s.score);
  const quality: CaseScore = {
    score: known.length === 0 ? 0 : known.reduce((a, b) => a + b, 0) / known.length,
    nodes,
  };
  return {
    caseId: String(index),
    index,
    iteration,
    inputs,
    runId: `run-${index}-${iteration}`,
    status: 'completed',
    output: 'done',
    scores: { quality },
    usage: { ...noUsage(), judge: noUsage() },
    timeMs,
    path: { trail: Object.keys(values), routes: {}, emitted: [], failed: [] },
  };
}

/** A report of a crew of tasks `tasks` (in order) over `cases`, its scorers as given. */
export function fakeReport(
  cases: EvalCaseResult[],
  tasks: readonly string[],
  scorers: EvalReport['scorers'] = [{ name: 'quality', level: 'node' }],
): EvalReport {
  const covered = { covered: [tasks.join(' → ')], uncovered: [], ratio: 1 };
  const means = Object.fromEntries(
    scorers.map((s) => [s.name, { mean: 0.8, min: 0, max: 1, count: cases.length, errors: 0 }]),
  );
  return {
    format: 1,
    id: 'report-1',
    target: { kind: 'crew', name: 'crew' },
    startedAt: '2026-01-01T00:00:00.000Z',
    iterations: Math.max(1, ...cases.map((c) => c.iteration)),
    scorers,
    cases,
    summary: {
      cases: new Set(cases.map((c) => c.caseId)).size,
      runs: cases.length,
      statuses: { completed: cases.length, failed: 0, partial: 0, paused: 0, error: 0 },
      scorers: means,
      usage: { ...noUsage(), judge: noUsage() },
      timeMs: { p50: 0, p95: 0, mean: 0, total: 0 },
    },
    coverage: {
      kind: 'crew',
      paths: { ...covered, total: 1 },
      routes: { covered: [], uncovered: [], ratio: 1 },
      failureHandlers: { covered: [], uncovered: [], ratio: 1 },
      timeouts: { covered: [], uncovered: [], ratio: 1 },
      nodes: { covered: [...tasks], uncovered: [], ratio: 1 },
      edges: [],
      truncated: false,
    },
  };
}
