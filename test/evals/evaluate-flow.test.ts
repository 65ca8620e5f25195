import { describe, expect, it } from 'vitest';
import { createFlow, type EvalCaseResult, evaluate } from '../../src/index.js';
import { supportFlow } from './eval-fixtures.js';

const TICKETS = [
  { id: 'refund', inputs: { ticket: 'refund #12' }, expected: 'refunded' },
  { id: 'question', inputs: { ticket: 'where is #7' }, expected: 'answered where is #7' },
];

describe('evaluate over a flow', () => {
  it('runs each case through the router and scores the run’s output and each step’s', async () => {
    const report = await evaluate({
      target: supportFlow(),
      dataset: TICKETS,
      scorers: {
        exact: ({ output, expected }) => output === expected,
        steps: {
          name: 'steps',
          level: 'node',
          nodes: ['triage', 'pay_back', 'answer'],
          score: () => ({ score: 1 }),
        },
      },
    });
    expect(report.target).toEqual({ kind: 'flow', name: 'support' });
    const [refund, question] = report.cases as [EvalCaseResult, EvalCaseResult];
    expect(refund.status).toBe('completed');
    expect(refund.output).toBe('refunded');
    expect(question.output).toBe('answered where is #7');
    expect(refund.scores.exact).toEqual({ score: 1 });
    expect(refund.path).toEqual({
      trail: ['triage', 'route', 'pay_back'],
      routes: { route: 'refund' },
      emitted: ['triage', 'route', 'refund', 'pay_back'],
      failed: [],
    });
    expect(question.path.routes).toEqual({ route: 'question' });
    expect(Object.keys(refund.scores.steps?.nodes ?? {})).toEqual(['triage', 'pay_back']);
    expect(Object.keys(question.scores.steps?.nodes ?? {})).toEqual(['triage', 'answer']);
    expect(report.summary.scorers.steps?.nodes).toEqual({
      triage: { mean: 1, count: 2 },
      pay_back: { mean: 1, count: 1 },
      answer: { mean: 1, count: 1 },
    });
  });

  it('reports the coverage of the runs: the route and step no case took', async () => {
    const report = await evaluate({
      target: supportFlow(),
      dataset: TICKETS.slice(0, 1),
      scorers: { any: () => 1 },
    });
    expect(report.coverage.kind).toBe('flow');
    expect(report.coverage.routes).toEqual({
      covered: ['route=refund'],
      uncovered: ['route=question'],
      ratio: 0.5,
    });
    expect(report.coverage.nodes.uncovered).toEqual(['answer']);
    expect(report.coverage.edges.find((e) => e.to === 'answer')?.taken).toBe(0);
  });

  it('counts the model calls of the crew inside a step in the run’s usage', async () => {
    const report = await evaluate({ target: supportFlow(), dataset: TICKETS, scorers: { any: () => 1 } });
    expect(report.cases.map((c) => c.usage.calls)).toEqual([1, 1]);
    expect(report.cases[0]?.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(report.summary.usage.totalTokens).toBe(30);
  });

  it('keeps the report JSON-safe: a Date as its ISO text, undefined dropped, a cycle an error on its case', async () => {
    const flow = createFlow({ name: 'odd', initialState: { kind: '' } }).start('make', ({ state }) => {
      if (state.kind === 'cycle') {
        const looped: Record<string, unknown> = {};
        looped.self = looped;
        return looped;
      }
      return { at: new Date(0), missing: undefined, kind: state.kind };
    });
    const report = await evaluate({
      target: flow,
      dataset: [{ inputs: { kind: 'date' } }, { inputs: { kind: 'cycle' } }],
      scorers: { seen: ({ output }) => typeof output === 'object' },
    });
    expect(report.cases[0]?.output).toEqual({ at: '1970-01-01T00:00:00.000Z', kind: 'date' });
    expect(report.cases[1]).toMatchObject({
      status: 'error',
      output: null,
      error: { code: 'invalid_report' },
    });
    expect(report.cases[1]?.error?.message).toContain('cannot be kept as JSON');
    expect(JSON.parse(JSON.stringify(report))).toStrictEqual(report);
  });
});
