import { describe, expect, it } from 'vitest';
import { PATH_SEPARATOR } from '../../src/machines/flow/waits.js';
import { type RunView, renderRunView, toFlowView } from '../../src/view/index.js';
import { storedFlowView } from '../../src/view/stored-run.js';
import { digestFlow, itemEvents, stamp } from './compose-fixtures.js';

const node = (view: RunView, id: string) => {
  const found = view.nodes.find((n) => n.id === id);
  if (found === undefined) throw new Error(`no node ${id}`);
  return found;
};

const started = { type: 'run.started', name: 'digest', process: 'flow', nodes: 4 };
const step = (name: string, status: string, extra: Record<string, unknown> = {}) => ({
  type: 'flow.step',
  name,
  nodeId: name,
  run: 1,
  status,
  ...extra,
});

describe('pictures of a flow that composes', () => {
  it('draws a map step as a group saying what each item runs, and a flow step as a box of its child steps', () => {
    const view = toFlowView(digestFlow());
    expect(view.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['fetch', 'step'],
      ['summaries', 'map'],
      ['review', 'flow'],
      ['report', 'step'],
    ]);
    expect(node(view, 'summaries').map).toEqual({ runs: 'crew', target: 'summarize', concurrency: 8 });
    expect(node(view, 'review').subflow).toEqual({
      flow: 'review',
      steps: [
        { name: 'draft', kind: 'step', status: 'not-run' },
        { name: 'approve', kind: 'human', status: 'not-run' },
        { name: 'publish', kind: 'step', status: 'not-run' },
      ],
    });
    expect(view.edges.map((e) => `${e.from}-${e.label ?? ''}->${e.to}`)).toContain(
      'summaries-failed->report',
    );
    const html = renderRunView(view);
    expect(html).toContain('▦ map · crew summarize ×8');
    expect(html).toContain('▣ flow · review');
    for (const name of ['draft', 'approve', 'publish']) expect(html).toContain(`data-sub-step="${name}"`);
    expect(html.match(/class="box stack"/g)).toHaveLength(2);
  });

  it('draws Mermaid subroutines for map steps and a subgraph of path-named ids for a flow step', () => {
    const mermaid = digestFlow().toMermaid();
    expect(mermaid).toContain('s1[["summaries<br/>map · crew summarize ×8"]]');
    expect(mermaid).toContain('subgraph s2 ["review · flow review"]');
    expect(mermaid).toContain('s2_s0["draft"]');
    expect(mermaid).toContain('s2_s1{"approve"}');
    expect(mermaid).toContain('s2_s1 -- "yes" --> s2_s2');
    expect(mermaid).toContain('s1 --> s2');
    expect(mermaid).toContain('s1 -. "failed" .-> s3');
    // The child's ids are its box's: none of the parent's is drawn twice.
    expect(mermaid.match(/^\s*s2_s0\[/gm)).toHaveLength(1);
    expect(mermaid.match(/^\s*s0\[/gm)).toHaveLength(1);
  });

  it('counts a 10,000-item map run by status and lists the first hundred, failed and running first', () => {
    const total = 10_000;
    const outcome = (i: number) => (i % 1000 === 7 ? 'failed' : i >= 9_990 ? 'running' : 'completed');
    const events = stamp('d-1', [
      started,
      step('fetch', 'started'),
      step('fetch', 'completed', { output: [] }),
      step('summaries', 'started'),
      ...itemEvents('summaries', total, outcome),
    ]);
    const began = performance.now();
    const view = toFlowView(digestFlow(), { events });
    const map = node(view, 'summaries').map;
    expect(map?.counts).toEqual({ total, completed: 9_980, failed: 10, running: 10 });
    expect(map?.items).toHaveLength(100);
    expect(map?.more).toBe(9_900);
    expect(map?.items?.filter((i) => i.status === 'failed').map((i) => i.itemId)).toEqual(
      Array.from({ length: 10 }, (_, k) => `doc-${k * 1000 + 7}`),
    );
    expect(map?.items?.find((i) => i.itemId === 'doc-7')).toMatchObject({
      status: 'failed',
      childId: 'd-1/summaries/doc-7',
      error: 'doc 7 is empty',
      code: 'map_item_failed',
    });
    expect(map?.items?.filter((i) => i.status === 'running')).toHaveLength(10);
    expect(node(view, 'summaries').status).toBe('running');
    const html = renderRunView(view);
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(html).toContain('9980/10000 done · 10 failed · 10 running');
    expect(html).toContain('data-total="10000" data-completed="9980" data-failed="10" data-running="10"');
    // The page holds the hundred items listed, never all ten thousand.
    expect(html.match(/"childId"/g)).toHaveLength(100);
  });

  it('reads a stored map output as counts when the run kept no item events', () => {
    const output = [
      { item: 'a', itemId: 'a', status: 'completed', output: 'x' },
      { item: 'b', itemId: 'b', status: 'failed', error: { message: 'no text', retryable: false } },
    ];
    const view = toFlowView(digestFlow(), {
      events: stamp('d-2', [
        started,
        step('summaries', 'started'),
        step('summaries', 'completed', { output }),
      ]),
    });
    expect(node(view, 'summaries').map).toMatchObject({
      counts: { total: 2, completed: 1, failed: 1, running: 0 },
      items: [
        { itemId: 'a', status: 'completed', childId: 'd-2/summaries/a' },
        { itemId: 'b', status: 'failed', childId: 'd-2/summaries/b', error: 'no text' },
      ],
    });
  });

  it("shows a subflow's steps from its relayed events, its child run, and the path a pause waits at", () => {
    const path = ['review', 'approve'].join(PATH_SEPARATOR);
    const parent = stamp('d-3', [
      started,
      step('fetch', 'started'),
      step('fetch', 'completed'),
      step('review', 'started'),
    ]);
    // The child's own events come relayed: its run id, tagged with the parent's step.
    const child = stamp(
      'd-3/review',
      [
        { ...step('draft', 'started'), step: 'review' },
        { ...step('draft', 'completed', { output: 'a draft' }), step: 'review' },
        {
          type: 'flow.paused',
          waiting: ['approve'],
          step: 'review',
          waitingFor: [{ step: 'approve', nodeId: 'approve', kind: 'human' }],
        },
      ],
      2_000,
    );
    const pause = stamp(
      'd-3',
      [
        {
          type: 'flow.paused',
          waiting: ['review'],
          waitingFor: [{ step: 'review', nodeId: 'review', kind: 'flow', runId: 'd-3/review', path }],
        },
      ],
      3_000,
    );
    const view = toFlowView(digestFlow(), { events: [...parent, ...child, ...pause] });
    const review = node(view, 'review');
    expect(review.status).toBe('paused');
    expect(review.subflow).toEqual({
      flow: 'review',
      runId: 'd-3/review',
      waitsAt: 'review › approve',
      steps: [
        { name: 'draft', kind: 'step', status: 'completed' },
        { name: 'approve', kind: 'human', status: 'paused' },
        { name: 'publish', kind: 'step', status: 'waiting' },
      ],
    });
    // The child's steps are not the parent's: no node of the parent ran `draft`.
    expect(view.nodes.map((n) => n.id)).not.toContain('draft');
    expect(node(view, 'fetch').status).toBe('completed');
    const html = renderRunView(view);
    expect(html).toContain('▣ flow · waits at review › approve');
    expect(html).toMatch(/data-sub-step="approve" data-status="paused"/);
  });

  it('draws a stored run without its definition: its map and flow steps known from their events', () => {
    const events = stamp('d-4', [
      started,
      step('summaries', 'started'),
      ...itemEvents('summaries', 3, () => 'completed'),
      step('summaries', 'completed'),
      step('review', 'started'),
      { ...step('draft', 'started'), runId: 'd-4/review', step: 'review' },
    ]).map((e, i) => (i === 6 ? { ...e, runId: 'd-4/review' } : e));
    const view = storedFlowView('digest', { events });
    expect(node(view, 'summaries')).toMatchObject({
      kind: 'map',
      map: { counts: { total: 3, completed: 3 } },
    });
    expect(node(view, 'review')).toMatchObject({
      kind: 'flow',
      subflow: { runId: 'd-4/review', steps: [{ name: 'draft', status: 'running' }] },
    });
  });
});
