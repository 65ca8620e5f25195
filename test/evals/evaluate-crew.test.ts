import { describe, expect, it } from 'vitest';
import { type EvalCaseResult, evaluate, type Scorer } from '../../src/index.js';
import { echoWithUsage, researchCrew } from './eval-fixtures.js';

const DATASET = [
  { id: 'ai', inputs: { topic: 'AI' }, expected: 'AI', expectedOutputs: { research: 'AI' } },
  { inputs: { topic: 'ML' }, expected: 'ML' },
];

/** A node scorer: 1 when the task's output holds its expected text, 0.5 when none is expected. */
const holdsExpected: Scorer = {
  name: 'holdsExpected',
  level: 'node',
  score: ({ text, expected }) =>
    expected === undefined ? { score: 0.5 } : { score: text.includes(String(expected)) ? 1 : 0 },
};

describe('evaluate over a crew', () => {
  it('runs each case × iteration in order and scores the run and each task', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: DATASET,
      iterations: 2,
      scorers: { mentions: ({ text, inputs }) => text.includes(String(inputs.topic)), holdsExpected },
    });
    expect(report.format).toBe(1);
    expect(report.target).toEqual({ kind: 'crew', name: 'research' });
    expect(report.scorers).toEqual([
      { name: 'mentions', level: 'run' },
      { name: 'holdsExpected', level: 'node' },
    ]);
    expect(report.cases.map((c) => `${c.caseId}#${c.iteration}@${c.index}`)).toEqual([
      'ai#1@0',
      'ai#2@0',
      '1#1@1',
      '1#2@1',
    ]);
    const [first] = report.cases as [EvalCaseResult];
    expect(first.status).toBe('completed');
    expect(first.output).toBe('Writer: Write about AI');
    expect(first.expected).toBe('AI');
    expect(first.scores.mentions).toEqual({ score: 1 });
    expect(first.path).toEqual({ trail: ['research', 'write'], routes: {}, emitted: [], failed: [] });
    expect(first.scores.holdsExpected).toEqual({
      score: 0.75,
      nodes: { research: { score: 1 }, write: { score: 0.5 } },
    });
    expect(new Set(report.cases.map((c) => c.runId)).size).toBe(4);
  });

  it('gives the node scorer each task with what it was asked and the case’s expected output for it', async () => {
    const seen: unknown[] = [];
    await evaluate({
      target: researchCrew(),
      dataset: DATASET.slice(0, 1),
      scorers: [
        {
          name: 'look',
          level: 'node',
          nodes: ['research'],
          score: ({ node, task, expected, output }) => {
            seen.push({ node, task, expected, output });
            return { score: 1 };
          },
        },
      ],
    });
    expect(seen).toEqual([
      {
        node: 'research',
        task: { description: 'Research AI', expectedOutput: 'facts on AI', agent: 'Researcher' },
        expected: 'AI',
        output: 'Researcher: Research AI',
      },
    ]);
  });

  it('sums usage per run and over the evaluation, and gives each scorer its figures', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: DATASET,
      scorers: { mentions: ({ text, inputs }) => text.includes(String(inputs.topic)), holdsExpected },
    });
    const noJudge = { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };
    expect(report.cases[0]?.usage).toEqual({
      inputTokens: 20,
      outputTokens: 10,
      totalTokens: 30,
      calls: 2,
      judge: noJudge,
    });
    const { summary } = report;
    expect(summary.cases).toBe(2);
    expect(summary.runs).toBe(2);
    expect(summary.statuses).toEqual({ completed: 2, failed: 0, partial: 0, paused: 0, error: 0 });
    expect(summary.usage).toEqual({
      inputTokens: 40,
      outputTokens: 20,
      totalTokens: 60,
      calls: 4,
      judge: noJudge,
    });
    expect(summary.scorers.mentions).toEqual({ mean: 1, min: 1, max: 1, count: 2, errors: 0 });
    expect(summary.scorers.holdsExpected).toEqual({
      mean: 0.625,
      min: 0.5,
      max: 1,
      count: 4,
      errors: 0,
      nodes: { research: { mean: 0.75, count: 2 }, write: { mean: 0.5, count: 2 } },
    });
    expect(summary.timeMs.p50).toBeGreaterThan(0);
    expect(summary.timeMs.p95).toBeGreaterThanOrEqual(summary.timeMs.p50);
    expect(summary.timeMs.total).toBeCloseTo(report.cases.reduce((t, c) => t + c.timeMs, 0));
  });

  it('records a scorer that throws as its scorer_failed score and goes on scoring and running', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset: DATASET,
      scorers: {
        broken: ({ inputs }) => {
          if (inputs.topic === 'AI') throw new Error('judge offline');
          return 1;
        },
        mentions: ({ text, inputs }) => text.includes(String(inputs.topic)),
      },
    });
    expect(report.cases.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(report.cases[0]?.scores.broken).toEqual({
      score: 0,
      error: { code: 'scorer_failed', message: 'Scorer "broken": it threw: judge offline (scorer_failed)' },
    });
    expect(report.cases[0]?.scores.mentions).toEqual({ score: 1 });
    expect(report.cases[1]?.scores.broken).toEqual({ score: 1 });
    expect(report.summary.scorers.broken).toMatchObject({ mean: 0.5, count: 2, errors: 1 });
  });

  it('records a case refused before it runs as an error, unscored, and runs the others', async () => {
    let scored = 0;
    const report = await evaluate({
      target: researchCrew(echoWithUsage(), { strictInputs: true }),
      dataset: [{ inputs: { topic: 'AI' } }, { inputs: {} }, { inputs: { topic: new Set() } }],
      scorers: {
        count: () => {
          scored += 1;
          return 1;
        },
      },
    });
    expect(report.cases.map((c) => c.status)).toEqual(['completed', 'error', 'error']);
    expect(report.cases.map((c) => c.error?.code)).toEqual([undefined, 'missing_input', 'invalid_inputs']);
    expect(report.cases[1]).toMatchObject({ output: null, scores: {} });
    expect(report.cases[1]?.error?.message).toContain('topic');
    expect(scored).toBe(1);
    expect(report.summary.statuses.error).toBe(2);
  });

  it('scores a partial run (a task failed) like any other, its failure named', async () => {
    const llm = echoWithUsage();
    const failing = {
      ...llm,
      generate: (request: Parameters<typeof llm.generate>[0]) =>
        request.agent === 'Writer' ? Promise.reject(new Error('model down')) : llm.generate(request),
    };
    const report = await evaluate({
      target: researchCrew(failing),
      dataset: DATASET.slice(0, 1),
      scorers: { any: () => 0.5 },
    });
    const [run] = report.cases as [EvalCaseResult];
    expect(run.status).toBe('partial');
    expect(run.error?.message).toContain('model down');
    expect(run.scores.any).toEqual({ score: 0.5 });
  });
});
