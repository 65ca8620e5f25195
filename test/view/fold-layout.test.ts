import { describe, expect, it } from 'vitest';
import { createFlow, InvalidOptionError } from '../../src/index.js';
import { crossings } from '../../src/view/crossings.js';
import { renderRunView, toFlowView, type ViewEdge, type ViewNode } from '../../src/view/index.js';
import { type GraphLayout, layoutGraph, type PlacedNode } from '../../src/view/layout.js';
import { rankNodes } from '../../src/view/ranks.js';

/** The graph box's width at a 1,400 × 900 window: what "a screen width" of graph is. */
const SCREEN = 902;

const task = (id: string, label = id): ViewNode => ({
  id,
  label,
  kind: 'task',
  status: 'completed',
  agent: 'Checker',
  runs: [],
});
const edge = (from: string, to: string, extra: Partial<ViewEdge> = {}): ViewEdge => ({
  from,
  to,
  taken: true,
  ...extra,
});

/** `start` → `count` parallel tasks → `summary`, as a parallel crew with a summary draws it. */
function fanOut(count: number, label = (i: number) => `check-${i}`) {
  const tasks = Array.from({ length: count }, (_, i) => task(`t${i}`, label(i)));
  const nodes: ViewNode[] = [
    { ...task('start'), kind: 'start' },
    ...tasks,
    { ...task('summary'), kind: 'summary' },
  ];
  const edges = tasks.flatMap((t) => [edge('start', t.id), edge(t.id, 'summary')]);
  return { nodes, edges };
}

/** The nodes side by side: grouped by the y of their centre. */
function rows(laid: GraphLayout): PlacedNode[][] {
  const byY = new Map<number, PlacedNode[]>();
  for (const placed of laid.nodes) byY.set(placed.y, [...(byY.get(placed.y) ?? []), placed]);
  return [...byY.values()];
}

const box = (p: { x: number; y: number; width: number; height: number }) => ({
  left: p.x - p.width / 2,
  right: p.x + p.width / 2,
  top: p.y - p.height / 2,
  bottom: p.y + p.height / 2,
});
type Box = ReturnType<typeof box>;
const overlap = (a: Box, b: Box) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Every pair of boxes that overlap, by name. */
function overlaps(boxes: { name: string; at: Box }[]): string[] {
  const found: string[] = [];
  boxes.forEach((a, i) => {
    for (const b of boxes.slice(i + 1)) if (overlap(a.at, b.at)) found.push(`${a.name} × ${b.name}`);
  });
  return found;
}
const nodeBoxes = (laid: GraphLayout) => laid.nodes.map((p) => ({ name: p.node.id, at: box(p) }));

describe('the run view folds wide ranks into rows', () => {
  it.each([50, 200, 500])(
    'lays out %i parallel tasks in rows of at most 12, at most three screen widths wide',
    (count) => {
      const { nodes, edges } = fanOut(count);
      const laid = layoutGraph(nodes, edges);
      const unfolded = layoutGraph(nodes, edges, { maxRowNodes: count });
      expect(laid.width).toBeLessThanOrEqual(3 * SCREEN);
      expect(unfolded.width).toBeGreaterThan(5 * SCREEN);
      expect(Math.max(...rows(laid).map((row) => row.length))).toBeLessThanOrEqual(12);
      expect(rows(laid)).toHaveLength(2 + Math.ceil(count / 12));
      expect(laid.folds).toMatchObject([{ count, rows: Math.ceil(count / 12) }]);
      // The start above the grid, the summary below it; every node inside the picture.
      const [start, summary] = [laid.nodes[0], laid.nodes.at(-1)] as [PlacedNode, PlacedNode];
      const tasks = laid.nodes.slice(1, -1);
      expect(Math.max(...tasks.map((t) => box(t).bottom))).toBeLessThan(box(summary).top);
      expect(Math.min(...tasks.map((t) => box(t).top))).toBeGreaterThan(box(start).bottom);
      for (const placed of laid.nodes) {
        const at = box(placed);
        expect(at.left >= 0 && at.top >= 0 && at.right <= laid.width && at.bottom <= laid.height).toBe(true);
      }
    },
  );

  it('places no node over another, for folded fan-outs and a router with twenty labelled routes', () => {
    for (const count of [50, 200, 500]) {
      const { nodes, edges } = fanOut(count);
      expect(overlaps(nodeBoxes(layoutGraph(nodes, edges)))).toEqual([]);
    }
    const routes = Array.from({ length: 20 }, (_, i) => `route-${i}`);
    let flow = createFlow({ name: 'dispatch', initialState: {} })
      .start('read', () => 'ticket')
      .router('pick', 'read', () => 'route-3', { routes });
    routes.forEach((route, i) => {
      flow = flow.listen(`handle-${i}`, route, () => i);
    });
    const view = toFlowView(flow);
    const laid = layoutGraph(view.nodes, view.edges);
    expect(laid.folds).toMatchObject([{ count: 20, rows: 2 }]);
    // Each route keeps its label, and no label covers a node.
    const labels = laid.edges.flatMap((e) =>
      e.labelAt === undefined
        ? []
        : [{ name: `label ${e.edge.label}`, at: box({ ...e.labelAt, width: 60, height: 18 }) }],
    );
    expect(labels).toHaveLength(20);
    expect(overlaps([...nodeBoxes(laid), ...labels]).filter((pair) => !pair.startsWith('label'))).toEqual([]);
    expect(overlaps(nodeBoxes(laid))).toEqual([]);
  });

  it('routes a folded fan-out and fan-in without one crossing, each edge from its node to its node', () => {
    const { nodes, edges } = fanOut(200);
    const laid = layoutGraph(nodes, edges);
    expect(laid.edges).toHaveLength(400);
    expect(crossings(laid.edges)).toBe(0);
    const at = new Map(laid.nodes.map((p) => [p.node.id, box(p)]));
    for (const { edge: e, points } of laid.edges) {
      const [first, last] = [points[0], points.at(-1)];
      const from = at.get(e.from) as Box;
      const to = at.get(e.to) as Box;
      expect(first?.y).toBeCloseTo(from.bottom, 0);
      expect(first?.x).toBeGreaterThanOrEqual(from.left);
      expect(first?.x).toBeLessThanOrEqual(from.right);
      expect(last?.y).toBeCloseTo(to.top, 0);
      expect(last?.x).toBeGreaterThanOrEqual(to.left);
      expect(last?.x).toBeLessThanOrEqual(to.right);
    }
    // The way is straight runs along the corridors: each segment level or upright.
    const segments = laid.edges.flatMap((e) => e.points.slice(1).map((p, i) => [e.points[i], p]));
    expect(
      segments.filter(([a, b]) => a !== undefined && b !== undefined && a.x !== b.x && a.y !== b.y),
    ).toEqual([]);
  });

  it('leaves a rank of twelve side by side, and folds by the maxRowNodes asked for', () => {
    const twelve = fanOut(12);
    const flat = layoutGraph(twelve.nodes, twelve.edges);
    expect(flat.folds).toEqual([]);
    expect(rows(flat).map((row) => row.length)).toEqual([1, 12, 1]);
    const narrow = layoutGraph(twelve.nodes, twelve.edges, { maxRowNodes: 5 });
    expect(rows(narrow).map((row) => row.length)).toEqual([1, 4, 4, 4, 1]);
    const html = renderRunView(
      {
        kind: 'crew',
        name: 'checks',
        nodes: twelve.nodes,
        edges: twelve.edges,
        timeline: [],
        totals: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 } },
      },
      { maxRowNodes: 5 },
    );
    expect(html).toContain('<title>12 nodes of one rank, folded into 3 rows</title>');
  });

  it('keeps a row of long labels under 2,400 px: fewer nodes side by side', () => {
    const { nodes, edges } = fanOut(60, (i) => `Check the supplier contract number ${i} now`);
    const laid = layoutGraph(nodes, edges);
    expect(laid.width).toBeLessThanOrEqual(2400 + 32);
    expect(Math.max(...rows(laid).map((row) => row.length))).toBeLessThan(12);
    expect(overlaps(nodeBoxes(laid))).toEqual([]);
  });

  it('routes an edge between two nodes of one folded rank (a loop back) from box to box', () => {
    const { nodes, edges } = fanOut(30);
    const laid = layoutGraph(nodes, [...edges, edge('t3', 't17', { back: true, taken: false })]);
    const back = laid.edges.find((e) => e.edge.from === 't3' && e.edge.to === 't17');
    const at = new Map(laid.nodes.map((p) => [p.node.id, box(p)]));
    expect(back?.points[0]?.y).toBe(at.get('t3')?.bottom);
    expect(back?.points.at(-1)?.y).toBe(at.get('t17')?.bottom);
  });

  it('refuses a maxRowNodes that is not a whole number of at least 1, and an unknown option', () => {
    const { nodes, edges } = fanOut(3);
    const view = {
      kind: 'crew' as const,
      name: 'c',
      nodes,
      edges,
      timeline: [],
      totals: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 } },
    };
    for (const maxRowNodes of [0, 2.5, Number.NaN]) {
      expect(() => renderRunView(view, { maxRowNodes })).toThrow(InvalidOptionError);
      expect(() => renderRunView(view, { maxRowNodes })).toThrow(
        /renderRunView: option "maxRowNodes" must be a whole number of at least 1/,
      );
    }
    expect(() => renderRunView(view, { maxRowNode: 4 } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: expect.stringContaining('did you mean "maxRowNodes"'),
      }),
    );
  });
});

describe('rankNodes', () => {
  it('ranks by the longest chain before a node, leaving out back edges and edges that close a cycle', () => {
    const ranks = rankNodes(
      ['a', 'b', 'c', 'd'],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c' },
        { from: 'c', to: 'a', back: true },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'b' },
      ],
    );
    // d → b closes the cycle b → c → d → b: it is left out.
    expect(Object.fromEntries(ranks)).toEqual({ a: 0, b: 1, c: 2, d: 3 });
  });

  it('ranks a chain of 20,000 nodes without overflowing the stack', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const ranks = rankNodes(
      ids,
      ids.slice(1).map((id, i) => ({ from: `n${i}`, to: id })),
    );
    expect(ranks.get('n19999')).toBe(19_999);
  });
});
