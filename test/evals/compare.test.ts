import { describe, expect, it } from 'vitest';
import { compareEvals, coverageRatio } from '../../src/evals/compare.js';
import { caseResult, coverageFrom, reportOf } from './report-factory.js';

describe('compareEvals', () => {
  it('gives each scorer its two means and delta, and finds the case that regressed', () => {
    const baseline = reportOf([caseResult('a', { exact: 1 }), caseResult('b', { exact: 1 })]);
    const candidate = reportOf([caseResult('a', { exact: 1 }), caseResult('b', { exact: 0 })]);
    const comparison = compareEvals(baseline, candidate);
    expect(comparison.scorers).toEqual([{ scorer: 'exact', baseline: 1, candidate: 0.5, delta: -0.5 }]);
    expect(comparison.regressed).toEqual([
      { caseId: 'b', scorer: 'exact', baseline: 1, candidate: 0, delta: -1 },
    ]);
    expect(comparison.improved).toEqual([]);
  });

  it('matches cases by id over the mean of their iterations', () => {
    const baseline = reportOf([caseResult('a', { exact: 1 }, 1), caseResult('a', { exact: 0 }, 2)]);
    const candidate = reportOf([caseResult('a', { exact: 0.5 }, 1), caseResult('a', { exact: 0.5 }, 2)]);
    const comparison = compareEvals(baseline, candidate);
    expect(comparison.regressed).toEqual([]);
    expect(comparison.improved).toEqual([]);
  });

  it('honours the tolerance: a fall within it is no regression, a rise past it an improvement', () => {
    const baseline = reportOf([caseResult('a', { judge: 0.8 }), caseResult('b', { judge: 0.5 })]);
    const candidate = reportOf([caseResult('a', { judge: 0.75 }), caseResult('b', { judge: 0.7 })]);
    const within = compareEvals(baseline, candidate, { tolerance: 0.1 });
    expect(within.regressed).toEqual([]);
    expect(within.improved.map((c) => c.caseId)).toEqual(['b']);
    const strict = compareEvals(baseline, candidate);
    expect(strict.regressed.map((c) => c.caseId)).toEqual(['a']);
  });

  it('lists added and removed cases, and compares neither', () => {
    const baseline = reportOf([caseResult('a', { exact: 1 }), caseResult('gone', { exact: 1 })]);
    const candidate = reportOf([caseResult('a', { exact: 1 }), caseResult('new', { exact: 0 })]);
    const comparison = compareEvals(baseline, candidate);
    expect(comparison.added).toEqual(['new']);
    expect(comparison.removed).toEqual(['gone']);
    expect(comparison.regressed).toEqual([]);
  });

  it('compares only the scorers both reports have, naming the others apart', () => {
    const baseline = reportOf([caseResult('a', { exact: 1, old: 1 })]);
    const candidate = reportOf([caseResult('a', { exact: 1, judge: 0 })]);
    const comparison = compareEvals(baseline, candidate);
    expect(comparison.scorers.map((s) => s.scorer)).toEqual(['exact']);
    expect(comparison.unmatchedScorers).toEqual({ baseline: ['old'], candidate: ['judge'] });
    expect(comparison.regressed).toEqual([]);
  });

  it('gives a node scorer its per-node deltas', () => {
    const scored = (draft: number, review: number) => ({
      score: (draft + review) / 2,
      nodes: { draft: { score: draft }, review: { score: review } },
    });
    const baseline = reportOf([caseResult('a', { task: scored(1, 1) })]);
    const candidate = reportOf([caseResult('a', { task: scored(1, 0.5) })]);
    expect(compareEvals(baseline, candidate).scorers[0]?.nodes).toEqual({
      draft: { baseline: 1, candidate: 1, delta: 0 },
      review: { baseline: 1, candidate: 0.5, delta: -0.5 },
    });
  });

  it('compares the mean coverage ratio, time p50 and cost', () => {
    const baseline = reportOf([caseResult('a', { exact: 1 })], { costUsd: 0.01 }, coverageFrom(['p', '!q']));
    const candidate = reportOf(
      [caseResult('a', { exact: 1 })],
      { costUsd: 0.02, timeMs: { p50: 30, p95: 40, mean: 30, total: 30 } },
      coverageFrom(['p', 'q']),
    );
    const comparison = compareEvals(baseline, candidate);
    expect(coverageRatio(baseline.coverage)).toBe((0.5 + 1 + 1 + 1 + 1) / 5);
    expect(comparison.coverage).toEqual({ baseline: 0.9, candidate: 1, delta: 1 - 0.9 });
    expect(comparison.timeMs).toEqual({ baseline: 10, candidate: 30 });
    expect(comparison.costUsd).toEqual({ baseline: 0.01, candidate: 0.02 });
  });
});
