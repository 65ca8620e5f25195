import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dueDiligence } from '../examples/due-diligence-graph.js';
import { pressRelease } from '../examples/press-release-loop.js';
import { refundFlow } from '../examples/refund-approval.js';
import { researchCrews } from '../examples/research-crew.js';
import { support } from '../examples/support-triage-flow.js';
import { SqliteStore } from '../src/index.js';
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
});
