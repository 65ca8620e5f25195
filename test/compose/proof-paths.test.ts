import { describe, expect, it } from 'vitest';
import { createFlow, failed, MemoryStore } from '../../src/index.js';
import { PATH_SEPARATOR } from '../../src/machines/flow/waits.js';
import { expectRouteCoverage, forEachPath, routeCoverage } from '../../src/testing.js';

const noop = () => undefined;

/** A flow with a map step (its failure handled) and a subflow whose router and human step choose. */
function publishFlow() {
  const decided: string[] = [];
  const review = createFlow({ name: 'review', initialState: {} })
    .start('draft', () => 'v1')
    .router(
      'grade',
      'draft',
      () => {
        decided.push('grade');
        return 'approve';
      },
      { routes: ['approve', 'revise'] },
    )
    .human('sign', 'approve', { routes: ['signed', 'refused'], prompt: 'Sign it?' })
    .listen('publish', 'signed', noop)
    .listen('archive', 'refused', noop)
    .listen('rework', 'revise', noop);
  const fetched = createFlow({ name: 'publish', initialState: {} }).start('fetch', () => ['a', 'b', 'c']);
  const summarized = fetched.map('summaries', 'fetch', {
    items: ({ outputs }) => outputs.fetch as string[],
    run: (item: string) => item.toUpperCase(),
  });
  const flow = summarized
    .flow('review', 'summaries', review)
    .listen('ship', 'review', noop)
    .listen('recover', failed('summaries'), noop);
  return { flow, decided };
}

/** The entries of a path's trail inside flow step `step`, their prefix stripped. */
const inside = (trail: readonly string[], step: string) =>
  trail
    .filter((name) => name.startsWith(`${step}${PATH_SEPARATOR}`))
    .map((name) => name.slice(step.length + 3));

describe('the proof of a flow with a map and a subflow', () => {
  it('terminates, and lists its paths through the child', () => {
    const { flow } = publishFlow();
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual([]);
    expect(analysis.unusedRoutes).toEqual([]);
    expect(analysis.paths.map((p) => [p.routes, p.outcome])).toEqual([
      [{ summaries: 'summaries', 'review › grade': 'approve', 'review › sign': 'signed' }, 'completed'],
      [{ summaries: 'summaries', 'review › grade': 'approve', 'review › sign': 'refused' }, 'completed'],
      [{ summaries: 'summaries', 'review › grade': 'revise' }, 'completed'],
      [{ summaries: 'failed' }, 'completed'],
    ]);
    expect(analysis.paths[0]?.trail).toEqual([
      'fetch',
      'summaries',
      'review › draft',
      'review › grade',
      'review › sign',
      'review › publish',
      'review',
      'ship',
    ]);
    expect(analysis.paths[3]?.trail).toEqual(['fetch', 'recover']);
  });

  it('drives every path with forced routes, the child’s by their path, and covers every route', async () => {
    const { flow, decided } = publishFlow();
    // As in any flow, a human step a path does not run is not forced: a store lets it be.
    const runs = await forEachPath(
      flow,
      (path, out) => {
        expect(out.status).toBe(path.outcome);
        expect(out.trail).toEqual(path.trail.filter((name) => !name.includes(PATH_SEPARATOR)));
      },
      { store: new MemoryStore() },
    );
    expect(runs).toHaveLength(4);
    for (const { path, children } of runs) {
      const ran = (children ?? []).filter((r) => r.step === 'review').flatMap((r) => r.steps);
      expect(ran).toEqual(inside(path.trail, 'review'));
    }
    expect(runs[3]?.output.trail).toEqual(['fetch', 'recover']);
    expect(decided).toEqual([]);
    const coverage = routeCoverage(runs);
    expect(coverage.covered).toEqual([
      'review › grade=approve',
      'review › grade=revise',
      'review › sign=signed',
      'review › sign=refused',
    ]);
    expectRouteCoverage(coverage);
  });

  it('reports a child route no run took as uncovered, by its path', async () => {
    const { flow } = publishFlow();
    const runs = await forEachPath(flow, noop, { store: new MemoryStore() });
    const coverage = routeCoverage(runs.filter((r) => r.path.routes['review › sign'] !== 'refused'));
    expect(coverage.uncovered).toEqual(['review › sign=refused']);
    expect(() => expectRouteCoverage(coverage)).toThrow(expect.objectContaining({ code: 'route_coverage' }));
  });
});
