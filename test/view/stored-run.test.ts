import { describe, expect, it } from 'vitest';
import { createFlow, MemoryStore } from '../../src/index.js';
import { readEvents } from '../../src/runtime/durable/event-record.js';
import { loadSnapshot } from '../../src/runtime/flow/flow-store.js';
import { toFlowView } from '../../src/view/index.js';
import type { RunView } from '../../src/view/model.js';
import { withEarlierSegments } from '../../src/view/segments.js';
import { storedCrewView, storedFlowView } from '../../src/view/stored-run.js';

/** An order that waits for its payment, then ships. */
function sagaFlow() {
  return createFlow({ name: 'order-saga', initialState: { item: 'kayak' } })
    .start('reserve', ({ state }) => `reserved ${state.item}`)
    .wait('payment', 'reserve', { event: 'payment.received' })
    .listen('ship', 'payment', () => 'shipped');
}

const statuses = (view: RunView) => Object.fromEntries(view.nodes.map((n) => [n.id, n.status]));

describe('a stored run drawn without its definition', () => {
  it('draws a flow run from its snapshot: a node per step it reached, the one it waits for paused', async () => {
    const store = new MemoryStore();
    const out = await sagaFlow().kickoff({ store });
    const snapshot = await loadSnapshot(store, out.id);
    const view = storedFlowView('order-saga', snapshot ?? { events: [] });
    expect(view).toMatchObject({ kind: 'flow', name: 'order-saga', id: out.id, status: 'paused', edges: [] });
    expect(statuses(view)).toEqual({ reserve: 'completed', payment: 'paused' });
    expect(view.nodes.find((n) => n.id === 'payment')).toMatchObject({
      kind: 'wait',
      wait: { event: 'payment.received' },
    });
    expect(view.nodes.every((n) => n.notes === undefined)).toBe(true);
  });

  it('draws a flow run from its events, with its timeline', async () => {
    const store = new MemoryStore();
    const out = await sagaFlow().kickoff({ store, events: 'store' });
    const events = (await readEvents(store, out.id)).map((kept) => kept.event);
    const view = storedFlowView('order-saga', { events });
    expect(statuses(view)).toEqual({ reserve: 'completed', payment: 'paused' });
    expect(view.nodes.find((n) => n.id === 'payment')?.kind).toBe('wait');
    expect(view.timeline.map((e) => e.node)).toEqual(['reserve', 'payment']);
  });

  it('draws a crew run from its execution document: a node per task, in the order they ran', () => {
    const doc = {
      executionId: 'c-1',
      crew: 'audit',
      process: 'sequential',
      status: 'partial' as const,
      results: [
        {
          nodeId: 'gather',
          name: 'gather',
          agent: 'A',
          description: 'g',
          status: 'completed' as const,
          attempts: 1,
          durationMs: 5,
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 },
          raw: 'facts',
          startedAt: 1_000,
        },
        {
          nodeId: 'check',
          name: 'check',
          agent: 'A',
          description: 'c',
          status: 'failed' as const,
          attempts: 2,
          durationMs: 5,
          usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1, calls: 2 },
          error: 'down',
          startedAt: 1_010,
        },
      ],
      output: 'facts',
      summary: '1 completed, 1 failed',
      startedAt: 1_000,
      totalTimeMs: 20,
    };
    const view = storedCrewView('audit', 'sequential', doc);
    expect(view).toMatchObject({
      kind: 'crew',
      name: 'audit',
      process: 'sequential',
      id: 'c-1',
      status: 'partial',
      edges: [],
    });
    expect(statuses(view)).toEqual({ gather: 'completed', check: 'failed' });
    expect(view.timeline.map((e) => [e.node, e.startMs])).toEqual([
      ['gather', 0],
      ['check', 10],
    ]);
    expect(view.totals.usage.calls).toBe(3);
  });
});

describe('withEarlierSegments', () => {
  it('gives a run whose events begin at a resume the nodes, bars and start time of the part before', async () => {
    const flow = createFlow({ name: 'two', initialState: {} })
      .start('first', () => 'one')
      .human('ask', 'first', { routes: ['go'], prompt: 'Go?' })
      .listen('last', 'go', () => 'done');
    const store = new MemoryStore();
    // The first part keeps no events; the resume keeps them from there on.
    const paused = await flow.kickoff({ store });
    await flow.resume(paused.id, { route: 'go' }, { store, events: 'store' });
    const events = (await readEvents(store, paused.id)).map((kept) => kept.event);
    const snapshot = await loadSnapshot(store, paused.id);
    const stored = toFlowView(flow, snapshot);
    const seen = toFlowView(flow, { events });
    expect(seen.nodes.find((n) => n.id === 'first')?.status).toBe('not-run');
    const merged = withEarlierSegments(seen, stored, 5);
    expect(merged.nodes.find((n) => n.id === 'first')?.status).toBe('completed');
    expect(merged.totals.startedAt).toBe(5);
    expect(merged.edges.find((e) => e.from === 'first')?.taken).toBe(true);
  });

  it('stretches a run the events saw from the resume on back to its stored start, bar and all', () => {
    const node = (startedAt: number, durationMs: number) => ({
      id: 'refund',
      label: 'refund',
      kind: 'task' as const,
      status: 'completed' as const,
      runs: [{ id: 'refund', status: 'completed' as const, startedAt, durationMs }],
    });
    const usage = (calls: number) => ({ inputTokens: calls, outputTokens: 0, totalTokens: calls, calls });
    const seen: RunView = {
      kind: 'crew',
      name: 'refunds',
      nodes: [node(2_000, 10)],
      edges: [],
      timeline: [
        {
          node: 'refund',
          run: 'refund',
          label: 'refund',
          kind: 'run',
          status: 'completed',
          startMs: 0,
          durationMs: 10,
        },
      ],
      totals: { usage: usage(1), startedAt: 2_000, timeMs: 10 },
    };
    const stored: RunView = {
      ...seen,
      nodes: [node(1_000, 10)],
      timeline: [],
      totals: { usage: usage(2), startedAt: 2_000 },
    };
    const merged = withEarlierSegments(seen, stored);
    expect(merged.totals).toMatchObject({ startedAt: 1_000, timeMs: 1_010, usage: usage(2) });
    expect(merged.timeline).toEqual([
      expect.objectContaining({ node: 'refund', startMs: 0, durationMs: 1_010 }),
    ]);
  });

  it('leaves a run whose events saw it all as they drew it', () => {
    const view: RunView = {
      kind: 'crew',
      name: 'x',
      nodes: [],
      edges: [],
      timeline: [],
      totals: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 }, startedAt: 7 },
    };
    expect(withEarlierSegments(view, { ...view, totals: { ...view.totals, startedAt: 7 } }, 3)).toBe(view);
    expect(view.totals.startedAt).toBe(7);
  });
});
