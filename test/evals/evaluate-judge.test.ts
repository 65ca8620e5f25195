import { describe, expect, it } from 'vitest';
import { crewaiTestScorer, evaluate, llmJudge } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { researchCrew } from './eval-fixtures.js';

/** A judge that scores every output 8 out of 10, each call spending 20 input and 4 output tokens and $0.001. */
function scriptedJudge() {
  return createScriptedModel(() => ({
    text: '{"quality": 8, "reason": "clear"}',
    usage: { inputTokens: 20, outputTokens: 4, costUsd: 0.001 },
  }));
}

describe('evaluate with a judge', () => {
  it('scores each task with CrewAI’s test judge and counts its calls in the case’s usage', async () => {
    const judge = scriptedJudge();
    const report = await evaluate({
      target: researchCrew(),
      dataset: [{ inputs: { topic: 'AI' } }],
      scorers: [crewaiTestScorer({ model: judge })],
    });
    const [run] = report.cases;
    expect(judge.calls).toHaveLength(2);
    expect(run?.scores.quality?.score).toBeCloseTo(0.8);
    expect(Object.keys(run?.scores.quality?.nodes ?? {})).toEqual(['research', 'write']);
    expect(run?.usage.judge).toEqual({
      inputTokens: 40,
      outputTokens: 8,
      totalTokens: 48,
      calls: 2,
      costUsd: 0.002,
    });
    expect(run?.usage).toMatchObject({ inputTokens: 60, outputTokens: 18, totalTokens: 78, calls: 4 });
    expect(report.summary.usage.judge.calls).toBe(2);
    expect(report.summary.costUsd).toBeCloseTo(0.002);
  });

  it('stops a judge once the evaluation’s budget is spent: its score is a scorer_failed error', async () => {
    const judge = scriptedJudge();
    const report = await evaluate({
      target: researchCrew(),
      dataset: [{ inputs: { topic: 'AI' } }],
      budget: { maxTokens: 50 },
      scorers: {
        first: llmJudge({ model: judge, rubric: 'Is it right?' }),
        second: llmJudge({ model: judge, rubric: 'Is it short?' }),
      },
    });
    const [run] = report.cases;
    // The run spends 30 tokens and the first judge call 24: the second judge is refused before it calls.
    expect(judge.calls).toHaveLength(1);
    expect(run?.scores.first?.score).toBeCloseTo(0.8);
    expect(run?.scores.second?.score).toBe(0);
    expect(run?.scores.second?.error?.message).toContain('budget');
    expect(run?.usage.judge.calls).toBe(1);
  });
});
