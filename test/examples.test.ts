import { describe, expect, it } from 'vitest';
import { dueDiligence } from '../examples/due-diligence-graph.js';
import { pressRelease } from '../examples/press-release-loop.js';
import { researchCrews } from '../examples/research-crew.js';
import { support } from '../examples/support-triage-flow.js';
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
});
