import type { CaseScore, EvalCaseResult, EvalCoverage, EvalReport } from '../../src/evals/types.js';

const none = () => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 });
const usage = () => ({ ...none(), judge: none() });

/** A covered set from names, a `!` before a name marking it uncovered. */
function covered(names: string[]) {
  const c = names.filter((n) => !n.startsWith('!'));
  const u = names.filter((n) => n.startsWith('!')).map((n) => n.slice(1));
  return { covered: c, uncovered: u, ratio: names.length === 0 ? 1 : c.length / names.length };
}

/** A flow coverage whose paths are `paths` (a `!` marks one no run took). */
export function coverageFrom(paths: string[], nodes: string[] = []): EvalCoverage {
  return {
    kind: 'flow',
    paths: { ...covered(paths), total: paths.length },
    routes: covered([]),
    failureHandlers: covered([]),
    timeouts: covered([]),
    nodes: covered(nodes),
    edges: [],
    truncated: false,
  };
}

/** One run of case `caseId` with these scores (a number, or a score with per-node scores). */
export function caseResult(
  caseId: string,
  scores: Record<string, number | CaseScore>,
  iteration = 1,
): EvalCaseResult {
  return {
    caseId,
    index: 0,
    iteration,
    inputs: {},
    runId: `${caseId}-${iteration}`,
    status: 'completed',
    output: null,
    scores: Object.fromEntries(
      Object.entries(scores).map(([name, s]) => [name, typeof s === 'number' ? { score: s } : s]),
    ),
    usage: usage(),
    timeMs: 10,
    path: { trail: [], routes: {}, emitted: [], failed: [] },
  };
}

/** A report of `cases`, its summary's scorer means computed from them (per node too). */
export function reportOf(
  cases: EvalCaseResult[],
  extra: Partial<EvalReport['summary']> = {},
  coverage = coverageFrom([]),
): EvalReport {
  const names = [...new Set(cases.flatMap((c) => Object.keys(c.scores)))];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const scorers = Object.fromEntries(
    names.map((name) => {
      const scores = cases.map((c) => c.scores[name]).filter((s) => s !== undefined);
      const values = scores.map((s) => s.score);
      const nodeNames = [...new Set(scores.flatMap((s) => Object.keys(s.nodes ?? {})))];
      const nodes = Object.fromEntries(
        nodeNames.map((node) => {
          const xs = scores.map((s) => s.nodes?.[node]?.score).filter((x) => x !== undefined);
          return [node, { mean: mean(xs), count: xs.length }];
        }),
      );
      const summary = {
        mean: mean(values),
        min: Math.min(...values),
        max: Math.max(...values),
        count: values.length,
        errors: 0,
      };
      return [name, nodeNames.length === 0 ? summary : { ...summary, nodes }];
    }),
  );
  return {
    format: 1,
    id: 'report',
    target: { kind: 'flow', name: 'support' },
    startedAt: '2026-01-01T00:00:00.000Z',
    iterations: 1,
    scorers: names.map((name) => ({ name, level: 'run' as const })),
    cases,
    summary: {
      cases: new Set(cases.map((c) => c.caseId)).size,
      runs: cases.length,
      statuses: { completed: cases.length, failed: 0, partial: 0, paused: 0, error: 0 },
      scorers,
      usage: usage(),
      timeMs: { p50: 10, p95: 10, mean: 10, total: 10 * cases.length },
      ...extra,
    },
    coverage,
  };
}
