import { describe, expect, it } from 'vitest';
import { and, createFlow, type Flow, failed, or } from '../../src/index.js';
import { analyzeFlow } from '../../src/runtime/flow/analysis.js';

/**
 * The shapes of `flow`, its map step `step` running `child` per item: what analysis reads of a map of
 * flows (the builder refuses flow items for now; the analysis composes them already).
 */
function withFlowItems(flow: Flow<object>, step: string, child: Flow<object>) {
  const steps = flow.definition.steps.map((s) =>
    s.name === step && s.map !== undefined
      ? {
          ...s,
          map: { ...s.map, runs: 'flow' as const, flow: { name: child.name, steps: child.definition.steps } },
        }
      : s,
  );
  return { name: flow.name, steps };
}

const noop = () => undefined;
const items = () => [1, 2, 3];

/** A child flow: a draft graded by a router, published or reworked. */
function reviewFlow() {
  return createFlow({ name: 'review', initialState: {} })
    .start('draft', noop)
    .router('grade', 'draft', () => 'approve', { routes: ['approve', 'revise'] })
    .listen('publish', 'approve', noop)
    .listen('rework', 'revise', noop);
}

/** A child flow whose revise loop can repeat at most `maxRuns` times (a `max_runs` failure past it). */
function loopFlow(maxRuns: number) {
  return createFlow({ name: 'loop', initialState: {} })
    .start('begin', noop)
    .listen('edit', or('begin', 'again'), noop, { maxRuns })
    .router('check', 'edit', () => 'done', { routes: ['done', 'again'], maxRuns })
    .listen('finish', 'done', noop);
}

describe('the proof of a map step', () => {
  it('is one node of the graph: the items do not multiply paths', () => {
    const flow = createFlow({ name: 'batch', initialState: {} })
      .start('fetch', noop)
      .map('each', 'fetch', { items, run: (item: number) => item * 2 })
      .listen('report', 'each', noop);
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths).toEqual([
      { routes: {}, trail: ['fetch', 'each', 'report'], outcome: 'completed' },
    ]);
    expect(analysis.stats.paths).toBe(1);
  });

  it('has a failure edge when failed(step) handles it, with allowFailures too', () => {
    for (const allowFailures of [false, true]) {
      const flow = createFlow({ name: 'batch', initialState: {} })
        .start('fetch', noop)
        .map('each', 'fetch', { items, run: noop, allowFailures })
        .listen('report', 'each', noop)
        .listen('recover', failed('each'), noop);
      expect(flow.paths()).toEqual([
        { routes: { each: 'each' }, trail: ['fetch', 'each', 'report'], outcome: 'completed' },
        { routes: { each: 'failed' }, trail: ['fetch', 'recover'], outcome: 'completed' },
      ]);
      expect(flow.analyze().unreachableSteps).toEqual([]);
    }
  });

  it('runs again in a loop up to its maxRuns, and the firing past it fails the run', () => {
    const flow = createFlow({ name: 'batches', initialState: {} })
      .start('seed', noop)
      .map('batch', or('seed', 'more'), { items, run: noop, maxRuns: 2 })
      .router('check', 'batch', () => 'enough', { routes: ['enough', 'more'], maxRuns: 2 })
      .listen('report', 'enough', noop);
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths.map((p) => [p.routes.check, p.outcome])).toEqual([
      ['enough', 'completed'],
      [['more', 'enough'], 'completed'],
      [['more', 'more'], 'failed'],
    ]);
    expect(analysis.paths[2]?.trail).toEqual(['seed', 'batch', 'check', 'batch', 'check']);
  });
});

describe('the proof of a flow step', () => {
  it('lists one parent path per child path, the child’s steps and routes named by their path', () => {
    const flow = createFlow({ name: 'publish', initialState: {} })
      .start('write', noop)
      .flow('review', 'write', reviewFlow())
      .listen('ship', 'review', noop);
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths).toEqual([
      {
        routes: { 'review › grade': 'approve' },
        trail: ['write', 'review › draft', 'review › grade', 'review › publish', 'review', 'ship'],
        outcome: 'completed',
      },
      {
        routes: { 'review › grade': 'revise' },
        trail: ['write', 'review › draft', 'review › grade', 'review › rework', 'review', 'ship'],
        outcome: 'completed',
      },
    ]);
    expect(analysis.nonTerminating).toEqual([]);
    expect(flow.paths()).toEqual(analysis.paths);
  });

  it('multiplies the paths of two flow steps and of a router after them', () => {
    const flow = createFlow({ name: 'two', initialState: {} })
      .start('write', noop)
      .flow('first', 'write', reviewFlow())
      .flow('second', 'first', reviewFlow())
      .router('pick', 'second', () => 'a', { routes: ['a', 'b'] })
      .listen('a1', 'a', noop)
      .listen('b1', 'b', noop);
    const paths = flow.paths();
    expect(paths).toHaveLength(8);
    expect(new Set(paths.map((p) => JSON.stringify(p.routes))).size).toBe(8);
    expect(paths[0]?.routes).toEqual({ pick: 'a', 'first › grade': 'approve', 'second › grade': 'approve' });
    expect(flow.paths({ limit: 3 })).toHaveLength(3);
    expect(flow.analyze({ limit: 3 }).stats).toMatchObject({ paths: 3, truncated: true });
  });

  it('names the paths of flows nested two deep', () => {
    const middle = createFlow({ name: 'middle', initialState: {} })
      .start('prepare', noop)
      .flow('inner', 'prepare', reviewFlow());
    const flow = createFlow({ name: 'outer', initialState: {} }).start('go', noop).flow('mid', 'go', middle);
    expect(flow.paths()[1]).toEqual({
      routes: { 'mid › inner › grade': 'revise' },
      trail: [
        'go',
        'mid › prepare',
        'mid › inner › draft',
        'mid › inner › grade',
        'mid › inner › rework',
        'mid › inner',
        'mid',
      ],
      outcome: 'completed',
    });
  });

  it('forces a human step inside the child through a route keyed by its path', () => {
    const approve = createFlow({ name: 'approve', initialState: {} })
      .start('ask', noop)
      .human('decide', 'ask', { routes: ['yes', 'no'], prompt: 'Ship it?' })
      .listen('accepted', 'yes', noop);
    const flow = createFlow({ name: 'release', initialState: {} })
      .start('build', noop)
      .flow('approval', 'build', approve)
      .listen('deploy', 'approval', noop);
    expect(flow.paths().map((p) => p.routes)).toEqual([
      { 'approval › decide': 'yes' },
      { 'approval › decide': 'no' },
    ]);
    expect(flow.analyze().unusedRoutes).toEqual(['approval › no']);
  });

  it('fails the parent where the child can fail and nothing handles the flow step', () => {
    const flow = createFlow({ name: 'parent', initialState: {} })
      .start('go', noop)
      .flow('polish', 'go', loopFlow(2))
      .listen('after', 'polish', noop);
    const paths = flow.paths();
    expect(paths.map((p) => [p.routes['polish › check'], p.outcome])).toEqual([
      ['done', 'completed'],
      [['again', 'done'], 'completed'],
      [['again', 'again'], 'failed'],
    ]);
    expect(paths[2]?.trail).toEqual([
      'go',
      'polish › begin',
      'polish › edit',
      'polish › check',
      'polish › edit',
      'polish › check',
    ]);
    expect(flow.analyze().terminates).toBe(true);
  });

  it('gives the flow step a failure edge when failed(step) handles it: the failure forced, its child not run', () => {
    const flow = createFlow({ name: 'parent', initialState: {} })
      .start('go', noop)
      .flow('review', 'go', reviewFlow())
      .listen('after', 'review', noop)
      .listen('fallback', failed('review'), noop);
    expect(flow.paths()).toEqual([
      {
        routes: { review: 'review', 'review › grade': 'approve' },
        trail: ['go', 'review › draft', 'review › grade', 'review › publish', 'review', 'after'],
        outcome: 'completed',
      },
      {
        routes: { review: 'review', 'review › grade': 'revise' },
        trail: ['go', 'review › draft', 'review › grade', 'review › rework', 'review', 'after'],
        outcome: 'completed',
      },
      { routes: { review: 'failed' }, trail: ['go', 'fallback'], outcome: 'completed' },
    ]);
  });

  it('reports the child’s unreachable steps, unused routes and dead ends under the step’s path', () => {
    const child = createFlow({ name: 'child', initialState: {} })
      .start('s', noop)
      .router('r', 's', () => 'left', { routes: ['left', 'right', 'up'] })
      .listen('l', 'left', noop)
      .listen('rt', 'right', noop)
      .listen('join', and('l', 'rt'), noop);
    const flow = createFlow({ name: 'parent', initialState: {} }).start('go', noop).flow('sub', 'go', child);
    const analysis = flow.analyze();
    expect(analysis.unreachableSteps).toEqual(['sub › join']);
    expect(analysis.unusedRoutes).toEqual(['sub › up']);
    expect(analysis.deadEnds).toEqual([
      { step: 'sub › join', missing: ['rt'], trail: ['sub › s', 'sub › r', 'sub › l'] },
      { step: 'sub › join', missing: ['l'], trail: ['sub › s', 'sub › r', 'sub › rt'] },
    ]);
  });
});

describe('termination of composed flows', () => {
  it('does not prove a parent whose child may not terminate, naming the child and its step', () => {
    const flow = createFlow({ name: 'parent', initialState: {} })
      .start('go', noop)
      .flow('polish', 'go', loopFlow(Number.POSITIVE_INFINITY));
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(false);
    expect(analysis.nonTerminating).toEqual([
      { flow: 'loop', step: 'polish', reason: 'a cycle of it can repeat forever' },
    ]);
  });

  it('names a grandchild by the path of steps that runs it, and a map step’s item flow by its step', () => {
    const middle = createFlow({ name: 'middle', initialState: {} })
      .start('prepare', noop)
      .flow('inner', 'prepare', loopFlow(Number.POSITIVE_INFINITY));
    const nested = createFlow({ name: 'outer', initialState: {} })
      .start('go', noop)
      .flow('mid', 'go', middle);
    expect(nested.analyze().nonTerminating).toEqual([
      { flow: 'loop', step: 'mid › inner', reason: 'a cycle of it can repeat forever' },
    ]);
    const mapped = createFlow({ name: 'mapped', initialState: {} })
      .start('go', noop)
      .map('each', 'go', { items, run: noop });
    const analysis = analyzeFlow(withFlowItems(mapped, 'each', loopFlow(Number.POSITIVE_INFINITY)));
    expect(analysis.terminates).toBe(false);
    expect(analysis.nonTerminating).toEqual([
      { flow: 'loop', step: 'each', reason: 'a cycle of it can repeat forever' },
    ]);
    expect(analysis.paths).toEqual([{ routes: {}, trail: ['go', 'each'], outcome: 'completed' }]);
  });

  it('ignores the child of a step no path runs', () => {
    const guarded = createFlow({ name: 'parent', initialState: {} })
      .start('go', noop)
      .router('r', 'go', () => 'a', { routes: ['a', 'b'] })
      .listen('x', 'a', noop)
      .listen('y', 'b', noop)
      .flow('never', and('x', 'y'), loopFlow(Number.POSITIVE_INFINITY));
    const analysis = guarded.analyze();
    expect(analysis.unreachableSteps).toEqual(['never']);
    expect(analysis.terminates).toBe(true);
  });

  it('refuses a flow that contains itself through its children, naming the chain', () => {
    const a = createFlow({ name: 'a', initialState: {} }).start('begin', noop);
    const b = createFlow({ name: 'b', initialState: {} }).start('start', noop).flow('back', 'start', a);
    a.flow('run-b', 'begin', b);
    for (const prove of [() => a.analyze(), () => a.paths(), () => b.analyze()]) {
      expect(prove).toThrow(expect.objectContaining({ code: 'cycle' }));
    }
    expect(() => a.analyze()).toThrow(
      'Flows contain each other: "a" (step "run-b") → "b" (step "back") → "a"',
    );
    const c = createFlow({ name: 'c', initialState: {} })
      .start('s', noop)
      .map('each', 's', { items, run: noop });
    const d = createFlow({ name: 'd', initialState: {} }).start('t', noop).flow('up', 't', c);
    expect(() => analyzeFlow(withFlowItems(c, 'each', d))).toThrow(
      expect.objectContaining({ code: 'cycle', details: { cycle: ['c', 'd'], steps: ['each', 'up'] } }),
    );
  });
});
