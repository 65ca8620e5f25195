import type { Covered, EvalComparison, EvalCoverage, EvalReport } from './types.js';

/** A number to 3 decimals, without trailing zeros. */
const num = (n: number) => (Number.isFinite(n) ? String(Math.round(n * 1000) / 1000) : String(n));
const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;
const signed = (n: number) => `${n >= 0 ? '+' : ''}${num(n)}`;
const ms = (n: number) => `${Math.round(n)} ms`;
const pad = (text: string, width: number) => text.padEnd(width);

/** Each scorer's mean (and per node) as aligned lines. */
function scorerLines(report: EvalReport): string[] {
  const entries = Object.entries(report.summary.scorers);
  const width = Math.max(8, ...entries.map(([name]) => name.length + 2));
  return entries.flatMap(([name, s]) => {
    const errors = s.errors > 0 ? `, ${s.errors} not scored` : '';
    const head = `  ${pad(name, width)}mean ${num(s.mean)}  (min ${num(s.min)}, max ${num(s.max)}, n=${s.count}${errors})`;
    const nodes = Object.entries(s.nodes ?? {}).map(
      ([node, n]) => `    ${pad(node, width - 2)}mean ${num(n.mean)}  (n=${n.count})`,
    );
    return [head, ...nodes];
  });
}

/**
 * A report as plain text: target, runs and their statuses, each scorer's mean (and per node), cost,
 * p50/p95 time; then its coverage ({@link formatCoverage}).
 */
export function formatReport(report: EvalReport): string {
  const { summary } = report;
  const statuses = Object.entries(summary.statuses)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  const cost = summary.costUsd === undefined ? 'unknown' : `$${summary.costUsd.toFixed(4)}`;
  const judge = summary.usage.judge.totalTokens > 0 ? ` (judge: ${summary.usage.judge.totalTokens})` : '';
  return [
    `Evaluation ${report.id} of ${report.target.kind} ${report.target.name}`,
    `  cases ${summary.cases}, iterations ${report.iterations}, runs ${summary.runs}${statuses === '' ? '' : ` (${statuses})`}`,
    'Scorers',
    ...scorerLines(report),
    `Cost ${cost}; tokens ${summary.usage.totalTokens}${judge}`,
    `Time p50 ${ms(summary.timeMs.p50)}, p95 ${ms(summary.timeMs.p95)}, total ${ms(summary.timeMs.total)}`,
    formatCoverage(report.coverage),
  ].join('\n');
}

const KINDS = [
  ['paths', 'paths'],
  ['routes', 'routes'],
  ['failureHandlers', 'failure handlers'],
  ['timeouts', 'timeouts'],
  ['nodes', 'steps'],
] as const;

/**
 * Coverage as plain text: each kind's `covered/total (pct)`, then every path, route, failure
 * handler, timeout and step (a crew's: task) no run took, one per line (`never taken: delivery=lost`).
 */
export function formatCoverage(coverage: EvalCoverage): string {
  const label = (title: string) => (coverage.kind === 'crew' && title === 'steps' ? 'tasks' : title);
  const ratio = (c: Covered) =>
    `${c.covered.length}/${c.covered.length + c.uncovered.length} (${pct(c.ratio)})`;
  const lines = [
    `Coverage (${coverage.kind})${coverage.truncated ? ' — paths truncated at the analysis limit' : ''}`,
  ];
  for (const [key, title] of KINDS) lines.push(`  ${pad(label(title), 18)}${ratio(coverage[key])}`);
  // A wait's timeout route is both a route and a timeout: named once.
  const never = new Set(KINDS.flatMap(([key]) => coverage[key].uncovered));
  for (const name of never) lines.push(`  never taken: ${name}`);
  const untaken = coverage.edges.filter((e) => e.taken === 0);
  for (const e of untaken)
    lines.push(`  edge never taken: ${e.from} → ${e.to}${e.label === undefined ? '' : ` (${e.label})`}`);
  return lines.join('\n');
}

/** A comparison as plain text: each scorer `baseline → candidate (±delta)`, then the regressed cases. */
export function formatComparison(comparison: EvalComparison): string {
  const width = Math.max(8, ...comparison.scorers.map((s) => s.scorer.length + 2));
  const lines = ['Scorers (baseline → candidate)'];
  for (const s of comparison.scorers) {
    lines.push(`  ${pad(s.scorer, width)}${num(s.baseline)} → ${num(s.candidate)} (${signed(s.delta)})`);
    for (const [node, n] of Object.entries(s.nodes ?? {})) {
      lines.push(`    ${pad(node, width - 2)}${num(n.baseline)} → ${num(n.candidate)} (${signed(n.delta)})`);
    }
  }
  const { coverage, timeMs, unmatchedScorers } = comparison;
  if (unmatchedScorers !== undefined) {
    const only = (side: string, names: string[]) =>
      names.length > 0 ? [`  only in the ${side}: ${names.join(', ')}`] : [];
    lines.push(
      ...only('baseline', unmatchedScorers.baseline),
      ...only('candidate', unmatchedScorers.candidate),
    );
  }
  lines.push(`Coverage ${pct(coverage.baseline)} → ${pct(coverage.candidate)} (${signed(coverage.delta)})`);
  lines.push(`Time p50 ${ms(timeMs.baseline)} → ${ms(timeMs.candidate)}`);
  if (comparison.costUsd !== undefined) {
    lines.push(
      `Cost $${comparison.costUsd.baseline.toFixed(4)} → $${comparison.costUsd.candidate.toFixed(4)}`,
    );
  }
  lines.push(comparison.regressed.length === 0 ? 'No case regressed' : 'Regressed cases');
  for (const r of comparison.regressed) {
    lines.push(`  ${r.caseId} ${r.scorer}: ${num(r.baseline)} → ${num(r.candidate)} (${signed(r.delta)})`);
  }
  if (comparison.added.length > 0) lines.push(`Added cases: ${comparison.added.join(', ')}`);
  if (comparison.removed.length > 0) lines.push(`Removed cases: ${comparison.removed.join(', ')}`);
  return lines.join('\n');
}
