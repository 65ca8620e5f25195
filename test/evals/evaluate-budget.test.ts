import { describe, expect, it } from 'vitest';
import { evaluate, type Scorer } from '../../src/index.js';
import { researchCrew } from './eval-fixtures.js';

const TOPICS = [{ inputs: { topic: 'AI' } }, { inputs: { topic: 'ML' } }, { inputs: { topic: 'DB' } }];
const JUDGE_CALL = { inputTokens: 7, outputTokens: 3, totalTokens: 10, calls: 1, costUsd: 0.002 };

/** A judge-like scorer: asks before its call, then tells what the call spent. */
const judge: Scorer = {
  name: 'judge',
  score: ({ beforeCall, spend }) => {
    beforeCall();
    spend(JUDGE_CALL);
    return { score: 0.8, reason: 'fine' };
  },
};

describe('evaluate: usage and budget', () => {
  it('counts what a scorer spends in the case’s judge usage, its totals and cost, and the summary', async () => {
    const report = await evaluate({ target: researchCrew(), dataset: TOPICS.slice(0, 2), scorers: [judge] });
    const [first] = report.cases;
    expect(first?.usage).toEqual({
      inputTokens: 27,
      outputTokens: 13,
      totalTokens: 40,
      calls: 3,
      costUsd: 0.002,
      judge: JUDGE_CALL,
    });
    expect(first?.costUsd).toBe(0.002);
    expect(report.summary.usage.judge).toEqual({
      ...JUDGE_CALL,
      inputTokens: 14,
      outputTokens: 6,
      totalTokens: 20,
      calls: 2,
      costUsd: 0.004,
    });
    expect(report.summary.usage.calls).toBe(6);
    expect(report.summary.costUsd).toBeCloseTo(0.004);
  });

  it('starts no case once the budget is spent (those left are budget_exceeded errors), a run in between stopped partial', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: TOPICS,
      concurrency: 1,
      budget: { maxTokens: 40 },
      scorers: { any: () => 1 },
    });
    // 30 tokens spent by the first run leave 10: the second stops after one call, the third never starts.
    expect(report.cases.map((c) => c.status)).toEqual(['completed', 'partial', 'error']);
    expect(report.cases[2]?.error?.code).toBe('budget_exceeded');
    expect(report.cases[2]).toMatchObject({ scores: {}, output: null, runId: '' });
    expect(report.summary.usage.totalTokens).toBe(45);
  });

  it('gives a crew run what is left of the budget: it stops midway, partial', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: TOPICS.slice(0, 1),
      budget: { maxTokens: 10 },
      scorers: { any: () => 1 },
    });
    expect(report.cases[0]?.status).toBe('partial');
    expect(report.cases[0]?.usage.calls).toBe(1);
    expect(report.cases[0]?.error?.code).toBe('budget_exceeded');
  });

  it('counts judges in the budget: a judge call past it is refused as a scorer_failed score', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: TOPICS.slice(0, 1),
      budget: { maxTokens: 30 },
      scorers: [judge],
    });
    expect(report.cases[0]?.status).toBe('completed');
    expect(report.cases[0]?.scores.judge?.error?.code).toBe('scorer_failed');
    expect(report.cases[0]?.scores.judge?.error?.message).toContain('budget is spent');
    expect(report.cases[0]?.usage.judge.calls).toBe(0);
  });
});
