import { describe, expect, it } from 'vitest';
import { orderSaga } from '../../examples/order-saga.js';
import {
  evaluate,
  formatCoverage,
  formatReport,
  includes,
  listEvalReports,
  MemoryStore,
} from '../../src/index.js';
import { researchCrew } from './eval-fixtures.js';

describe('evaluate: the order-saga example', () => {
  it('names the branches its dataset never took: the delivery timeout, investigate and close', async () => {
    const store = new MemoryStore();
    const report = await evaluate({
      target: orderSaga(store),
      dataset: [
        { id: 'good', inputs: { customer: 'Cy', card: 'good', amount: 60 } },
        { id: 'declined', inputs: { customer: 'Bob', card: 'declined', amount: 45 } },
      ],
      scorers: { answered: includes(['charged', 'nothing charged']) },
    });
    expect(report.cases.map((c) => [c.caseId, c.status, c.path.trail])).toEqual([
      ['good', 'paused', ['charge', 'ship']],
      ['declined', 'completed', ['refund', 'notify']],
    ]);
    const { coverage } = report;
    expect(coverage.kind).toBe('flow');
    expect(coverage.failureHandlers.covered).toEqual(['refund']);
    expect(coverage.timeouts.uncovered).toEqual(['delivery=lost']);
    expect(coverage.routes.uncovered).toContain('delivery=lost');
    expect(coverage.nodes.uncovered.sort()).toEqual(['close', 'delivery', 'investigate']);
    const text = formatCoverage(coverage);
    for (const never of ['delivery=lost', 'investigate', 'close']) expect(text).toContain(never);
    expect(formatReport(report)).toContain(text.split('\n')[0]);
    // The report is kept beside the runs, in the flow's own store.
    expect((await listEvalReports(store)).map((head) => head.id)).toEqual([report.id]);
  });
});

describe('evaluate: its runs are ordinary runs', () => {
  it('forks a case’s run at a checkpoint like any other run, with no model call for what it keeps', async () => {
    const store = new MemoryStore();
    const crew = researchCrew();
    const report = await evaluate({
      target: crew,
      dataset: [{ inputs: { topic: 'AI' } }],
      store,
      scorers: { any: () => 1 },
    });
    const runId = report.cases[0]?.runId ?? '';
    const forked = await crew.fork(runId, {
      at: 'write',
      outputs: { research: 'edited facts' },
      store,
    });
    expect(forked.status).toBe('completed');
    expect(forked.metadata.forkedFrom).toMatchObject({ runId });
    expect(forked.outputOf({ name: 'research' })?.raw).toBe('edited facts');
  });
});
