import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, MemoryStore, Task } from '../../src/index.js';
import { readEvents } from '../../src/runtime/durable/event-record.js';
import { loadSnapshot } from '../../src/runtime/flow/flow-store.js';
import { createScriptedModel } from '../../src/testing.js';
import { toFlowView } from '../../src/view/index.js';
import type { RunView } from '../../src/view/model.js';
import { withEarlierSegments } from '../../src/view/segments.js';
import { storedCrewView } from '../../src/view/stored-crew.js';
import { storedFlowView } from '../../src/view/stored-run.js';
import { storedRunView } from '../../src/view/stored-view.js';

/** An order that waits for its payment, then ships. */
function sagaFlow() {
  return createFlow({ name: 'order-saga', initialState: { item: 'kayak' } })
    .start('reserve', ({ state }) => `reserved ${state.item}`)
    .wait('payment', 'reserve', { event: 'payment.received' })
    .listen('ship', 'payment', () => 'shipped');
}

/** A refund that is sized by a router, and a large one approved by a human before it is paid. */
function refundFlow() {
  return createFlow({ name: 'refunds', initialState: { amount: 500 } })
    .start('check', () => 'checked')
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', { routes: ['approved', 'denied'], prompt: 'Refund it?' })
    .listen('pay', 'approved', () => 'paid')
    .listen('note', 'small', () => 'noted');
}

/** A stored crew result: task `nodeId` ran by agent A from `startedAt` for `durationMs`. */
function result(nodeId: string, startedAt: number, durationMs: number) {
  return {
    nodeId,
    name: nodeId,
    agent: 'A',
    description: nodeId,
    status: 'completed' as const,
    attempts: 1,
    durationMs,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, calls: 1 },
    raw: nodeId,
    startedAt,
  };
}

/** A stored crew run of process `process` with these results. */
function crewDoc(process: string, results: ReturnType<typeof result>[]) {
  return {
    executionId: 'c-2',
    crew: 'pipeline',
    process,
    status: 'completed' as const,
    results,
    output: 'done',
    summary: `${results.length} completed`,
    startedAt: 1_000,
    totalTimeMs: 100,
  };
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

  it('draws a flow run from its snapshot alone: a router and an answered human step as such, and no edges', async () => {
    const store = new MemoryStore();
    const paused = await refundFlow().kickoff({ store });
    await refundFlow().resume(paused.id, { route: 'approved' }, { store });
    const snapshot = await loadSnapshot(store, paused.id);
    const view = storedFlowView('refunds', snapshot ?? { events: [] });
    expect(view.status).toBe('completed');
    expect(view.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['check', 'step', 'completed'],
      ['size', 'router', 'completed'],
      ['approval', 'human', 'completed'],
      ['pay', 'step', 'completed'],
    ]);
    expect(view.nodes.find((n) => n.id === 'approval')?.human).toMatchObject({ route: 'approved' });
    // Which step listens to what is the definition's: the order steps ran in does not tell it.
    expect(view.edges).toEqual([]);
  });

  it('draws a flow run from its events: its router and its answered human step as such, and no edges', async () => {
    const store = new MemoryStore();
    const paused = await refundFlow().kickoff({ store, events: 'store' });
    await refundFlow().resume(paused.id, { route: 'approved' }, { store, events: 'store' });
    const events = (await readEvents(store, paused.id)).map((kept) => kept.event);
    const view = storedFlowView('refunds', { events });
    expect(view.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['check', 'step'],
      ['size', 'router'],
      ['approval', 'human'],
      ['pay', 'step'],
    ]);
    expect(view.nodes.find((n) => n.id === 'approval')?.human).toMatchObject({ route: 'approved' });
    expect(view.edges).toEqual([]);
  });

  it('draws a stored run from its store alone, from its events and its kept state', async () => {
    const store = new MemoryStore();
    const paused = await refundFlow().kickoff({ store });
    await refundFlow().resume(paused.id, { route: 'approved' }, { store, events: 'store' });
    const head = await store.readRun(paused.id);
    if (head === undefined) throw new Error('the run has no head');
    const view = await storedRunView(store, head);
    expect(view).toMatchObject({
      kind: 'flow',
      name: 'refunds',
      id: paused.id,
      status: 'completed',
      edges: [],
    });
    // The events begin at the resume: the steps before it come from the kept state.
    expect(view.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['check', 'step', 'completed'],
      ['size', 'router', 'completed'],
      ['approval', 'human', 'completed'],
      ['pay', 'step', 'completed'],
    ]);
    // A snapshot keeps no step times: the bars are those of the runs the events saw.
    expect(view.timeline.filter((e) => e.kind === 'run').map((e) => e.node)).toEqual(['approval', 'pay']);
  });

  it('draws a sequential crew run from its store alone as the chain of its tasks', async () => {
    const llm = createScriptedModel((request) => `answer to ${request.prompt.length}`);
    const agent = new Agent({ role: 'Writer', goal: 'write', backstory: 'writes', llm });
    const tasks = ['outline', 'draft'].map(
      (name) => new Task({ name, description: `Do the ${name}`, expectedOutput: name, agent }),
    );
    const store = new MemoryStore();
    const out = await new Crew({ name: 'writing', tasks }).kickoff({ store });
    const head = await store.readRun(String(out.metadata.executionId));
    if (head === undefined) throw new Error('the run has no head');
    const view = await storedRunView(store, head);
    expect(view).toMatchObject({ kind: 'crew', name: 'writing', process: 'sequential', status: 'completed' });
    expect(view.nodes.map((n) => [n.id, n.status])).toEqual([
      ['outline', 'completed'],
      ['draft', 'completed'],
    ]);
    expect(view.edges).toEqual([{ from: 'outline', to: 'draft', taken: true }]);
  });

  it('joins no tasks a stored run does not say follow each other: other processes, asynchronous tasks', () => {
    const apart = [result('a', 1_000, 10), result('b', 1_010, 10)];
    expect(storedCrewView('pipeline', 'graph', crewDoc('graph', apart)).edges).toEqual([]);
    expect(storedCrewView('pipeline', 'sequential', crewDoc('sequential', apart)).edges).toEqual([
      { from: 'a', to: 'b', taken: true },
    ]);
    // A start taken a moment before the one before it ended is still a chain.
    const close = [result('a', 1_000, 12), result('b', 1_010, 10)];
    expect(storedCrewView('pipeline', 'sequential', crewDoc('sequential', close)).edges).toHaveLength(1);
    // `b` started while `a` ran: an asynchronous task, so the definition's picture is no chain.
    const overlapping = [result('a', 1_000, 2_000), result('b', 1_005, 10)];
    expect(storedCrewView('pipeline', 'sequential', crewDoc('sequential', overlapping)).edges).toEqual([]);
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
    });
    // A sequential crew runs its tasks in its definition's order: the chain is kept with the run.
    expect(view.edges).toEqual([{ from: 'gather', to: 'check', taken: true }]);
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
