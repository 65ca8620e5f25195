import { describe, expect, it } from 'vitest';
import type { EvalCoverage } from '../../src/evals/types.js';
import { createFlow, MemoryStore } from '../../src/index.js';
import { coverageSvg, NEVER_COMPLETED, NEVER_TAKEN } from '../../src/view/coverage-svg.js';
import { toFlowView } from '../../src/view/index.js';

/** A refund flow: small refunds are paid at once, large ones wait for a human. */
function refundFlow() {
  return createFlow({ name: 'refund', initialState: { amount: 0 }, store: new MemoryStore() })
    .start('check', ({ state }) => state.amount)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', { routes: ['approved', 'rejected'], prompt: 'Refund?' })
    .listen('pay', 'small', () => 'paid')
    .listen('decline', 'rejected', () => 'declined');
}

const covered = (names: string[], uncovered: string[]) => ({
  covered: names,
  uncovered,
  ratio: names.length / Math.max(1, names.length + uncovered.length),
});

/** Three small refunds ran: the large branch never did. */
const COVERAGE: EvalCoverage = {
  kind: 'flow',
  paths: { ...covered(['check → size → pay'], ['check → size → approval → decline']), total: 2 },
  routes: covered(['size=small'], ['size=large', 'approval=approved', 'approval=rejected']),
  failureHandlers: covered([], []),
  timeouts: covered([], []),
  nodes: covered(['check', 'size', 'pay'], ['approval', 'decline']),
  edges: [
    { from: 'check', to: 'size', taken: 3 },
    { from: 'size', to: 'approval', label: 'large', taken: 0 },
    { from: 'size', to: 'pay', label: 'small', taken: 3 },
    { from: 'approval', to: 'decline', label: 'rejected', taken: 0 },
  ],
  truncated: false,
};

/** Each `<g>` of `kind` (edge or node) with its classes and attributes, as the SVG holds them. */
function groups(svg: string, kind: 'coverage-edge' | 'coverage-node') {
  const found = [...svg.matchAll(/<g class="([^"]*)"([^>]*)>(?:<title>([^<]*)<\/title>)?/g)];
  return found
    .filter((m) => (m[1] ?? '').split(' ')[0] === kind)
    .map((m) => ({ classes: (m[1] ?? '').split(' '), attrs: m[2] ?? '', title: m[3] ?? '' }));
}
const attr = (attrs: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(attrs)?.[1];

describe('coverageSvg', () => {
  it('puts the class untaken on exactly the edges no run took, each titled so', () => {
    const svg = coverageSvg(toFlowView(refundFlow()), COVERAGE);
    const edges = groups(svg, 'coverage-edge');
    const untaken = edges.filter((e) => e.classes.includes('untaken'));
    expect(untaken.map((e) => `${attr(e.attrs, 'data-from')}->${attr(e.attrs, 'data-to')}`)).toEqual([
      'size->approval',
      'approval->decline',
    ]);
    for (const edge of untaken) expect(edge.title).toContain(NEVER_TAKEN);
    expect(
      edges.filter((e) => e.classes.includes('covered')).map((e) => attr(e.attrs, 'data-taken')),
    ).toEqual(['3', '3']);
  });

  it('draws an untaken edge dashed and red, and labels each edge with how many runs took it', () => {
    const svg = coverageSvg(toFlowView(refundFlow()), COVERAGE);
    const large =
      /<g class="coverage-edge untaken"[^>]*data-to="approval"[^>]*>.*?<\/g>/.exec(svg)?.[0] ?? '';
    expect(large).toContain('stroke="#dc2626"');
    expect(large).toContain('stroke-dasharray="6 4"');
    expect(large).toContain('>large never</text>');
    expect(svg).toContain('>small ×3</text>');
  });

  it('marks the steps no run completed, and only those', () => {
    const svg = coverageSvg(toFlowView(refundFlow()), COVERAGE);
    const nodes = groups(svg, 'coverage-node');
    expect(nodes.filter((g) => g.classes.includes('untaken')).map((g) => attr(g.attrs, 'data-node'))).toEqual(
      ['approval', 'decline'],
    );
    expect(nodes.find((g) => attr(g.attrs, 'data-node') === 'decline')?.title).toBe(
      `decline: ${NEVER_COMPLETED}`,
    );
    expect(nodes.filter((g) => g.classes.includes('covered'))).toHaveLength(3);
  });

  it('matches an edge whose view label adds its gate to the route the coverage names', () => {
    const flow = createFlow({ name: 'gate', initialState: {}, store: new MemoryStore() })
      .start('a', () => 1)
      .router('pick', 'a', () => 'x', { routes: ['x', 'y'] })
      .listen('b', { kind: 'or', of: ['x', 'y'] }, () => 2);
    const svg = coverageSvg(toFlowView(flow), {
      ...COVERAGE,
      nodes: covered(['a', 'pick', 'b'], []),
      edges: [
        { from: 'a', to: 'pick', taken: 1 },
        { from: 'pick', to: 'b', label: 'x', taken: 1 },
        { from: 'pick', to: 'b', label: 'y', taken: 0 },
      ],
    });
    const untaken = groups(svg, 'coverage-edge').filter((e) => e.classes.includes('untaken'));
    expect(untaken.map((e) => attr(e.attrs, 'data-label'))).toEqual(['y · or']);
  });

  it('escapes every name it draws', () => {
    const flow = createFlow({ name: '<b>&"flow"', initialState: {}, store: new MemoryStore() }).start(
      '<script>',
      () => 1,
    );
    const svg = coverageSvg(toFlowView(flow), { ...COVERAGE, nodes: covered([], ['<script>']), edges: [] });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('Coverage of &lt;b&gt;&amp;&quot;flow&quot;');
  });
});
