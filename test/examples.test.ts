import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dueDiligence } from '../examples/due-diligence-graph.js';
import { runEvals } from '../examples/evals.js';
import { orderSaga } from '../examples/order-saga.js';
import { pressRelease } from '../examples/press-release-loop.js';
import { refundFlow } from '../examples/refund-approval.js';
import { researchCrews } from '../examples/research-crew.js';
import * as studio from '../examples/studio.js';
import { support } from '../examples/support-triage-flow.js';
import { compareEvals, formatCoverage, MemoryStore, SqliteStore } from '../src/index.js';
import { createServer } from '../src/serve/index.js';
import { liveRuns } from '../src/serve/server.js';
import { forEachPath, routeCoverage } from '../src/testing.js';

const crews = { ...researchCrews(), dueDiligence, pressRelease };

describe('the examples, proven', () => {
  it.each(Object.entries(crews))('crew %s terminates with no unreachable task', (name, crew) => {
    const analysis = crew.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachable).toEqual([]);
    expect({ name, paths: analysis.paths, criticalPath: analysis.criticalPath }).toMatchSnapshot();
  });

  it('the support flow terminates, every step and route is reachable, and its paths are stored', () => {
    const analysis = support.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual([]);
    expect(analysis.unusedRoutes).toEqual([]);
    expect(analysis.deadEnds).toEqual([]);
    expect(analysis.paths).toMatchSnapshot();
  });

  it('the support flow runs each enumerated path exactly as enumerated when forced', async () => {
    const runs = await forEachPath(
      support,
      (path, out) => {
        expect(out.status).toBe(path.outcome);
        expect(out.trail).toEqual(path.trail);
      },
      { inputs: { ticket: 'a ticket', amount: 10, customer: 'Test' } },
    );
    expect(runs).toHaveLength(2);
    expect(routeCoverage(runs).ratio).toBe(1);
  });

  it('the refund flow pauses a large refund in one store object and pays it from another once approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-refund-'));
    try {
      const path = join(dir, 'refunds.db');
      const first = new SqliteStore({ path });
      const paused = await refundFlow(first).kickoff({ inputs: { customer: 'Grace', amount: 480 } });
      await first.close();
      expect(paused.status).toBe('paused');
      expect(paused.pending).toMatchObject({ kind: 'human' });
      expect(paused.pending?.kind === 'human' && paused.pending.prompt).toBe(
        'Approve a refund of $480 to Grace?',
      );
      const second = new SqliteStore({ path });
      const out = await refundFlow(second).resume(paused.id, { route: 'approved', feedback: 'ok' });
      await second.close();
      expect(out.trail).toEqual(['check', 'size', 'approval', 'pay']);
      expect(out.state).toMatchObject({ paid: true });
      expect(refundFlow(new SqliteStore({ path: ':memory:' })).analyze().unreachableSteps).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the order saga handles a declined card, waits for its delivery and takes the signal from another store object', async () => {
    const saga = orderSaga(new MemoryStore());
    const analysis = saga.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual([]);
    expect(analysis.paths.map((p) => p.routes)).toEqual([
      { charge: 'charge', delivery: 'delivery' },
      { charge: 'charge', delivery: 'lost' },
      { charge: 'failed' },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-saga-'));
    try {
      const path = join(dir, 'orders.db');
      const first = new SqliteStore({ path });
      const declined = await orderSaga(first).kickoff({
        inputs: { customer: 'Bob', card: 'declined', amount: 5 },
      });
      expect(declined.status).toBe('completed');
      expect(declined.trail).toEqual(['refund', 'notify']);
      expect(declined.failures.charge).toMatchObject({ handled: true, retryable: false });
      const shipped = await orderSaga(first).kickoff({
        inputs: { customer: 'Ada', card: 'flaky', amount: 5 },
      });
      await first.close();
      expect(shipped.status).toBe('paused');
      expect(shipped.pending).toMatchObject({ kind: 'event', event: 'delivery.confirmed' });
      const second = new SqliteStore({ path });
      const out = await orderSaga(second).signal(shipped.id, 'delivery.confirmed', { signedBy: 'Ada' });
      await second.close();
      expect(out.trail).toEqual(['charge', 'ship', 'delivery', 'close']);
      expect(out.output).toBe('order of Ada closed: delivered, signed by Ada');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the studio module serves its definitions: a large refund started over HTTP pauses, and its answer pays it', async () => {
    const store = new MemoryStore();
    const server = createServer({
      crews: [studio.research],
      flows: [studio.refunds, studio.support],
      store,
      insecureNoAuth: true,
      runner: false,
    });
    const post = (path: string, body: unknown) =>
      server.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      const names = (
        (await (await server.request('/definitions')).json()) as { definitions: { name: string }[] }
      ).definitions.map((d) => d.name);
      expect(names).toEqual(['research', 'refund-approval', 'support-triage']);
      const started = await post('/runs', {
        definition: 'refund-approval',
        inputs: { customer: 'Ada', amount: 250 },
      });
      const { id } = (await started.json()) as { id: string };
      await liveRuns(server).get(id)?.done;
      expect((await store.readRun(id))?.status).toBe('paused');
      expect((await post(`/runs/${id}/resume`, { route: 'approved' })).status).toBe(202);
      await liveRuns(server).get(id)?.done;
      expect((await store.readRun(id))?.status).toBe('completed');
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('the evals example names the route no case took and the case a worse model regressed', async () => {
    const { baseline, candidate } = await runEvals();
    expect(baseline.summary.scorers.judge?.mean).toBeCloseTo(0.9);
    expect(baseline.summary.usage.judge.calls).toBe(2);
    expect(baseline.coverage.routes.uncovered).toEqual(['decide=needs_review']);
    expect(formatCoverage(baseline.coverage)).toContain('never taken: decide=needs_review');
    const comparison = compareEvals(baseline, candidate);
    expect(comparison.regressed.map((r) => `${r.caseId} ${r.scorer}`)).toEqual([
      'broken-mug category',
      'broken-mug judge',
    ]);
  });
});
