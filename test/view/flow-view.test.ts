import { describe, expect, it } from 'vitest';
import { createFlow, MemoryStore, or, type StatecrewEvent, type Store } from '../../src/index.js';
import { type RunView, toFlowView } from '../../src/view/index.js';

/** A refund flow: small refunds are paid at once, large ones wait for a human. */
function refundFlow(store: Store) {
  return createFlow({ name: 'refund', initialState: { amount: 0, paid: false }, store })
    .start('check', ({ state }) => state.amount)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', {
      routes: ['approved', 'rejected'],
      prompt: ({ state }) => `Refund $${state.amount}?`,
    })
    .listen('pay', or('small', 'approved'), ({ state, payload }) => {
      state.paid = true;
      return payload;
    })
    .listen('decline', 'rejected', () => 'declined');
}

const statuses = (view: RunView) => Object.fromEntries(view.nodes.map((n) => [n.id, n.status]));
const edges = (view: RunView) =>
  view.edges.map((e) => `${e.from}-${e.label ?? ''}->${e.to}${e.taken ? ' *' : ''}`);
const node = (view: RunView, id: string) => view.nodes.find((n) => n.id === id);

describe('toFlowView', () => {
  it('draws steps and an edge from each trigger, labelled with its route and gate', () => {
    const view = toFlowView(refundFlow(new MemoryStore()));
    expect(view).toMatchObject({ kind: 'flow', name: 'refund' });
    expect(view.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['check', 'step', 'not-run'],
      ['size', 'router', 'not-run'],
      ['approval', 'human', 'not-run'],
      ['pay', 'step', 'not-run'],
      ['decline', 'step', 'not-run'],
    ]);
    expect(edges(view)).toEqual([
      'check-->size',
      'size-large->approval',
      'size-small · or->pay',
      'approval-approved · or->pay',
      'approval-rejected->decline',
    ]);
    expect(node(view, 'approval')?.human).toEqual({ routes: ['approved', 'rejected'] });
  });

  it('shows a run paused at its human step, with the route taken and what the human is asked', async () => {
    const flow = refundFlow(new MemoryStore());
    const run = flow.run({ inputs: { id: 'r-1', amount: 250 } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const view = toFlowView(flow, { output: await run.result, events });
    expect(view).toMatchObject({ id: 'r-1', status: 'paused' });
    expect(statuses(view)).toEqual({
      check: 'completed',
      size: 'completed',
      approval: 'paused',
      // The run goes on once answered: the steps it did not reach may still run.
      pay: 'waiting',
      decline: 'waiting',
    });
    expect(edges(view).filter((e) => e.endsWith('*'))).toEqual(['check-->size *', 'size-large->approval *']);
    expect(node(view, 'size')?.output).toBe('large');
    expect(node(view, 'check')).toMatchObject({ output: '250', structured: 250 });
    expect(node(view, 'approval')?.human).toMatchObject({
      prompt: 'Refund $250?',
      routes: ['approved', 'rejected'],
    });
    expect(view.timeline.map((e) => [e.node, e.kind])).toEqual([
      ['check', 'run'],
      ['size', 'run'],
      ['approval', 'wait'],
    ]);
  });

  it('shows the branch a router did not take as not run while the run waits on the other', async () => {
    const flow = createFlow({ name: 'triage', initialState: { amount: 0 }, store: new MemoryStore() })
      .start('check', ({ state }) => state.amount)
      .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
        routes: ['small', 'large'],
      })
      .human('approval', 'large', { routes: ['approved', 'rejected'], prompt: 'Pay?' })
      .listen('note', 'small', () => 'noted')
      .listen('pay', or('small', 'approved'), () => 'paid');
    const run = flow.run({ inputs: { amount: 250 } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const view = toFlowView(flow, { output: await run.result, events });
    expect(view.status).toBe('paused');
    // Only the router's "small" starts "note", and the router chose "large": it will not run.
    expect(statuses(view)).toMatchObject({ approval: 'paused', note: 'not-run', pay: 'waiting' });
  });

  it('shows a stored run after the human answered: the answer, and the path through the approval', async () => {
    const store = new MemoryStore();
    const flow = refundFlow(store);
    await flow.kickoff({ inputs: { id: 'r-2', amount: 500 } });
    await flow.resume('r-2', { route: 'approved', feedback: 'fine by me' });
    const view = toFlowView(flow, await flow.getRun('r-2'));
    expect(view.status).toBe('completed');
    expect(statuses(view)).toEqual({
      check: 'completed',
      size: 'completed',
      approval: 'completed',
      pay: 'completed',
      decline: 'not-run',
    });
    expect(node(view, 'approval')?.human).toMatchObject({ route: 'approved', feedback: 'fine by me' });
    expect(edges(view).filter((e) => e.endsWith('*'))).toEqual([
      'check-->size *',
      'size-large->approval *',
      'approval-approved · or->pay *',
    ]);
  });

  it('shows a failed step with its error, and the small route taken', async () => {
    const flow = createFlow({ name: 'f', initialState: { n: 1 } })
      .start('begin', () => 'go')
      .router('pick', 'begin', () => 'left', { routes: ['left', 'right'] })
      .listen('boom', 'left', () => {
        throw new Error('it broke');
      })
      .listen('other', 'right', () => 'x');
    const run = flow.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const view = toFlowView(flow, { output: await run.result, events });
    expect(view.status).toBe('failed');
    expect(node(view, 'boom')).toMatchObject({ status: 'failed', error: 'it broke' });
    expect(node(view, 'other')?.status).toBe('not-run');
    expect(edges(view)).toContain('pick-left->boom *');
    expect(edges(view)).toContain('pick-right->other');
  });
});
