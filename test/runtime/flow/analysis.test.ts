import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { and, createFlow, or } from '../../../src/index.js';
import { FlowRounds } from '../../../src/machines/flow/rounds.js';
import { expectRouteCoverage, forEachPath, routeCoverage } from '../../../src/testing.js';

const noop = () => undefined;

function seedFlow() {
  const called: string[] = [];
  const flow = createFlow({ name: 'review', initialState: { score: 0 } })
    .start('draft', () => 'v1')
    .router(
      'grade',
      'draft',
      ({ state }) => {
        called.push('grade');
        return state.score >= 7 ? 'approve' : 'revise';
      },
      { routes: ['approve', 'revise'] },
    )
    .listen('publish', 'approve', () => 'published')
    .listen('rework', 'revise', () => 'reworked');
  return { flow, called };
}

function reviseLoop(maxRuns: number) {
  return createFlow({ name: 'revise-loop', initialState: {} })
    .start('begin', noop)
    .listen('draft', or('begin', 'revise'), noop, { maxRuns })
    .router('grade', 'draft', () => 'approve', { routes: ['approve', 'revise'], maxRuns })
    .listen('publish', 'approve', noop);
}

describe('flow analysis', () => {
  it('finds exactly the two paths of the seed flow and runs each as a test', async () => {
    const { flow, called } = seedFlow();
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths).toEqual([
      { routes: { grade: 'approve' }, trail: ['draft', 'grade', 'publish'], outcome: 'completed' },
      { routes: { grade: 'revise' }, trail: ['draft', 'grade', 'rework'], outcome: 'completed' },
    ]);
    expect(analysis.unreachableSteps).toEqual([]);
    expect(analysis.unusedRoutes).toEqual([]);
    const runs = await forEachPath(flow, (path, out) => {
      expect(out.trail).toEqual(path.trail);
      expect(out.status).toBe(path.outcome);
    });
    expect(runs).toHaveLength(2);
    expect(called).toEqual([]);
    expect(routeCoverage(runs)).toEqual({
      covered: ['grade=approve', 'grade=revise'],
      uncovered: [],
      ratio: 1,
    });
  });

  it('refuses to analyse a flow with a typo’d listener', () => {
    const flow = createFlow({ name: 'typo', initialState: {} })
      .start('draft', noop)
      .listen('publish', 'drfat', noop);
    expect(() => flow.analyze()).toThrow(expect.objectContaining({ code: 'unknown_trigger' }));
  });

  it('reports a route nobody listens to in unusedRoutes', () => {
    const flow = createFlow({ name: 'unused', initialState: {} })
      .start('s', noop)
      .router('r', 's', () => 'yes', { routes: ['yes', 'no', 'maybe'] })
      .listen('onYes', 'yes', noop)
      .listen('onNo', 'no', noop);
    expect(flow.analyze().unusedRoutes).toEqual(['maybe']);
  });

  it('reports an and after two exclusive branches as a dead end, and its step as unreachable', () => {
    const flow = createFlow({ name: 'dead', initialState: {} })
      .start('s', noop)
      .router('r', 's', () => 'left', { routes: ['left', 'right'] })
      .listen('l', 'left', noop)
      .listen('rt', 'right', noop)
      .listen('join', and('l', 'rt'), noop);
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual(['join']);
    expect(analysis.deadEnds).toEqual([
      { step: 'join', missing: ['rt'], trail: ['s', 'r', 'l'] },
      { step: 'join', missing: ['l'], trail: ['s', 'r', 'rt'] },
    ]);
  });

  it('proves a bounded revise loop terminates and lists exactly its paths', () => {
    const analysis = reviseLoop(3).analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths.map((p) => [p.routes.grade, p.outcome])).toEqual([
      ['approve', 'completed'],
      [['revise', 'approve'], 'completed'],
      [['revise', 'revise', 'approve'], 'completed'],
      [['revise', 'revise', 'revise'], 'failed'],
    ]);
    expect(analysis.paths[3]?.trail).toEqual(['begin', 'draft', 'grade', 'draft', 'grade', 'draft', 'grade']);
  });

  it('says a flow may not terminate only when a maxRuns: Infinity cycle can repeat forever', () => {
    const analysis = reviseLoop(Number.POSITIVE_INFINITY).analyze();
    expect(analysis.terminates).toBe(false);
    // Paths never go round a cycle of the state graph: the endless revise loop is cut.
    expect(analysis.paths.map((p) => p.routes.grade)).toEqual(['approve']);
  });

  it('analyses 12 binary routers in sequence within budget, and truncates past a path limit', () => {
    let flow = createFlow({ name: 'twelve', initialState: {} }).start('s', noop);
    let previous = 's';
    for (let i = 1; i <= 12; i += 1) {
      flow = flow.router(`r${i}`, previous, () => `a${i}`, { routes: [`a${i}`, `b${i}`] });
      previous = `r${i}`;
    }
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.stats).toEqual({ states: 14, transitions: 25, paths: 4096, truncated: false });
    expect(flow.analyze({ limit: 100 }).stats).toMatchObject({ paths: 100, truncated: true });
    expect(() => flow.analyze({ stateLimit: 5 })).toThrow(
      expect.objectContaining({ code: 'analysis_limit' }),
    );
  });

  it('compiles to a plain machine that round-trips through JSON and contains every real trail', async () => {
    const { flow } = seedFlow();
    const machine = flow.toMachine();
    const copy = createMachine(JSON.parse(JSON.stringify(machine.config)));
    expect(copy.config).toEqual(machine.config);
    expect(Object.keys(machine.states)).toEqual([
      '1: draft',
      '2: grade',
      '3: publish',
      '4: rework',
      'completed',
    ]);
    expect(machine.states['2: grade']?.config.on).toEqual({
      'grade=approve': '3: publish',
      'grade=revise': '4: rework',
    });
    for (const score of [2, 9]) {
      const out = await flow.kickoff({ inputs: { score } });
      expect(flow.paths().map((p) => p.trail)).toContainEqual(out.trail);
    }
  });

  it('draws the flow as Mermaid with route labels on the edges and gates as circles', () => {
    const flow = createFlow({ name: 'm', initialState: {} })
      .start('a', noop)
      .router('r', 'a', () => 'go', { routes: ['go', 'stop'] })
      .listen('b', 'go', noop)
      .listen('c', and('a', 'b'), noop);
    expect(flow.toMermaid()).toBe(
      [
        'flowchart TD',
        '  s0["a"]',
        '  s1{"r"}',
        '  s2["b"]',
        '  s3["c"]',
        '  s0 --> s1',
        '  s1 -- "go" --> s2',
        '  g1((and))',
        '  g1 --> s3',
        '  s0 --> g1',
        '  s2 --> g1',
      ].join('\n'),
    );
  });
});

describe('the abstract states of analysis', () => {
  it('keeps apart end states that differ only in which once-only steps ran', () => {
    const { flow } = seedFlow();
    // publish's end and rework's end are two states (one `completed` in the machine).
    expect(flow.analyze().stats).toEqual({ states: 6, transitions: 5, paths: 2, truncated: false });
    expect(Object.keys(flow.toMachine().states)).toHaveLength(5);
  });

  it('keys the same steps run in a different order alike, and a different set of runs apart', () => {
    const steps = createFlow({ name: 'k', initialState: {} })
      .start('a', noop)
      .start('b', noop)
      .listen('x', 'a', noop)
      .listen('y', 'b', noop)
      .listen('z', and('x', 'y'), noop).definition.steps;
    const xFirst = new FlowRounds(steps);
    xFirst.first();
    const yFirst = xFirst.clone();
    expect(xFirst.next(['a']).kind).toBe('next');
    expect(yFirst.next(['b']).kind).toBe('next');
    expect(xFirst.key()).not.toBe(yFirst.key());
    expect(xFirst.waiting()).toEqual([]);
    xFirst.next(['b']);
    yFirst.next(['a']);
    expect(xFirst.next(['x', 'y'])).toEqual({ kind: 'next', steps: [{ step: 'z', run: 1, trigger: 'y' }] });
    const half = yFirst.clone();
    expect(half.next(['y'])).toEqual({ kind: 'next', steps: [] });
    expect(half.waiting()).toEqual([{ step: 'z', missing: ['x'] }]);
    expect(yFirst.next(['y', 'x']).kind).toBe('next');
    expect(yFirst.key()).toBe(xFirst.key());
    expect(half.key()).not.toBe(yFirst.key());
  });

  it('ignores emissions that reach a once-only step after it ran', () => {
    const steps = createFlow({ name: 'once', initialState: {} })
      .start('a', noop)
      .listen('again', 'a', noop, { maxRuns: 3 })
      .listen('once', or('a', 'again'), noop).definition.steps;
    const rounds = new FlowRounds(steps);
    rounds.first();
    expect(rounds.next(['a'])).toMatchObject({ steps: [{ step: 'again' }, { step: 'once' }] });
    const before = rounds.key();
    expect(rounds.next(['a'])).toEqual({ kind: 'next', steps: [{ step: 'again', run: 2, trigger: 'a' }] });
    expect(rounds.next(['again'])).toEqual({ kind: 'next', steps: [] });
    expect(rounds.key()).not.toBe(before);
    expect(rounds.waiting()).toEqual([]);
  });

  it('lists every path of a long chain of routers with its trail in order', () => {
    let flow = createFlow({ name: 'long', initialState: {} }).start('s0', noop);
    for (let i = 1; i <= 300; i += 1) {
      flow =
        i % 100 === 0
          ? flow.router(`s${i}`, `s${i - 1}`, () => `l${i}`, { routes: [`l${i}`, `r${i}`] })
          : flow.listen(`s${i}`, i % 100 === 1 && i > 1 ? or(`l${i - 1}`, `r${i - 1}`) : `s${i - 1}`, noop);
    }
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths.map((p) => p.routes)).toEqual([
      { s100: 'l100', s200: 'l200', s300: 'l300' },
      { s100: 'l100', s200: 'l200', s300: 'r300' },
      { s100: 'l100', s200: 'r200', s300: 'l300' },
      { s100: 'l100', s200: 'r200', s300: 'r300' },
      { s100: 'r100', s200: 'l200', s300: 'l300' },
      { s100: 'r100', s200: 'l200', s300: 'r300' },
      { s100: 'r100', s200: 'r200', s300: 'l300' },
      { s100: 'r100', s200: 'r200', s300: 'r300' },
    ]);
    const trail = Array.from({ length: 301 }, (_, i) => `s${i}`);
    expect(analysis.paths.every((p) => JSON.stringify(p.trail) === JSON.stringify(trail))).toBe(true);
    expect(analysis.stats).toMatchObject({ states: 302, transitions: 304 });
  });

  it('finds a dead end at the bottom of a long chain, with the whole trail', () => {
    let flow = createFlow({ name: 'deep', initialState: {} }).start('s0', noop);
    for (let i = 1; i < 500; i += 1) flow = flow.listen(`s${i}`, `s${i - 1}`, noop);
    const analysis = flow
      .router('pick', 's499', () => 'left', { routes: ['left', 'right'] })
      .listen('l', 'left', noop)
      .listen('join', and('s499', 'l', 'right'), noop)
      .analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual(['join']);
    const trail = [...Array.from({ length: 500 }, (_, i) => `s${i}`), 'pick'];
    expect(analysis.deadEnds).toEqual([
      { step: 'join', missing: ['right'], trail: [...trail, 'l'] },
      { step: 'join', missing: ['l'], trail },
    ]);
  });
});

describe('forced routes', () => {
  it('forces a router along a path without calling it', async () => {
    const { flow, called } = seedFlow();
    const out = await flow.kickoff({ inputs: { score: 9 }, routes: { grade: 'revise' } });
    expect(out.trail).toEqual(['draft', 'grade', 'rework']);
    expect(called).toEqual([]);
  });

  it('forces successive runs from a list and fails a run with no forced label left', async () => {
    const flow = reviseLoop(3);
    const out = await flow.kickoff({ routes: { grade: ['revise', 'approve'] } });
    expect(out.trail).toEqual(['begin', 'draft', 'grade', 'draft', 'grade', 'publish']);
    const short = await flow.kickoff({ routes: { grade: ['revise'] } });
    expect(short.status).toBe('failed');
    expect(short.errors.grade).toMatch(/\(unknown_route\)$/);
  });

  it('fails a forced label outside the routes, and rejects a key naming no router', async () => {
    const { flow } = seedFlow();
    const bad = await flow.kickoff({ routes: { grade: 'sideways' } });
    expect(bad.errors.grade).toMatch(/returned "sideways", which is not one of its routes/);
    await expect(flow.kickoff({ routes: { grdae: 'approve' } })).rejects.toMatchObject({
      code: 'unknown_router',
    });
  });

  it('fails a coverage check below what the test asks for', async () => {
    const { flow } = seedFlow();
    const one = [
      { flow, path: flow.paths()[0] as never, output: await flow.kickoff({ routes: { grade: 'approve' } }) },
    ];
    const coverage = routeCoverage(one);
    expect(coverage).toMatchObject({ covered: ['grade=approve'], uncovered: ['grade=revise'], ratio: 0.5 });
    expect(() => expectRouteCoverage(coverage)).toThrow(
      'Route coverage 50% is below 100%; not taken: grade=revise',
    );
    expect(() => expectRouteCoverage(coverage, 0.5)).not.toThrow();
  });
});
