import { describe, expect, it } from 'vitest';
import { compareEvals } from '../../src/evals/compare.js';
import { formatComparison, formatCoverage, formatReport } from '../../src/evals/report-text.js';
import { caseResult, coverageFrom, reportOf } from './report-factory.js';

describe('formatReport', () => {
  it('names the target, runs and statuses, each scorer’s mean and per node, cost and p50/p95 time, then the coverage', () => {
    const report = reportOf(
      [
        caseResult('a', { exact: 1, task: { score: 0.5, nodes: { draft: { score: 0.5 } } } }),
        caseResult('b', { exact: 0, task: { score: 1, nodes: { draft: { score: 1 } } } }),
      ],
      { costUsd: 0.0123, timeMs: { p50: 12, p95: 40, mean: 20, total: 40 } },
      coverageFrom(['a → b [completed]', '!a → c [completed]']),
    );
    const text = formatReport(report);
    expect(text).toContain('Evaluation report of flow support');
    expect(text).toContain('runs 2 (2 completed)');
    expect(text).toMatch(/exact\s+mean 0\.5 {2}\(min 0, max 1, n=2\)/);
    expect(text).toMatch(/draft\s+mean 0\.75 {2}\(n=2\)/);
    expect(text).toContain('Cost $0.0123');
    expect(text).toContain('Time p50 12 ms, p95 40 ms');
    expect(text).toMatch(/paths\s+1\/2 \(50%\)/);
    expect(text).toContain('never taken: a → c [completed]');
    expect(text).not.toContain(String.fromCharCode(27));
  });
});

describe('formatCoverage', () => {
  it('gives every kind its ratio and names only what no run took', () => {
    const text = formatCoverage(coverageFrom(['!x [completed]'], ['s', '!t']));
    expect(text.split('\n')).toEqual([
      'Coverage (flow)',
      '  paths             0/1 (0%)',
      '  routes            0/0 (100%)',
      '  failure handlers  0/0 (100%)',
      '  timeouts          0/0 (100%)',
      '  steps             1/2 (50%)',
      '  never taken: x [completed]',
      '  never taken: t',
    ]);
  });
});

describe('formatComparison', () => {
  it('writes each scorer as baseline → candidate (delta), then the regressed cases', () => {
    const baseline = reportOf([caseResult('a', { exact: 1 }), caseResult('b', { exact: 1 })]);
    const candidate = reportOf([caseResult('a', { exact: 1 }), caseResult('b', { exact: 0 })]);
    const text = formatComparison(compareEvals(baseline, candidate));
    expect(text).toMatch(/exact\s+1 → 0\.5 \(-0\.5\)/);
    expect(text).toContain('Regressed cases\n  b exact: 1 → 0 (-1)');
  });
});
