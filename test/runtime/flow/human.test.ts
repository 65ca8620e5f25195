import { describe, expect, it } from 'vitest';
import { and, createFlow, MemoryStore, type StatecrewEvent, type Store } from '../../../src/index.js';

/** A refund flow: small refunds are paid at once, large ones wait for a human's approval. */
function refundFlow(store: Store | undefined, ran: string[]) {
  return createFlow({ name: 'refund', initialState: { amount: 0, paid: false }, store })
    .start('check', ({ state }) => {
      ran.push('check');
      return state.amount;
    })
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', {
      routes: ['approved', 'rejected'],
      prompt: ({ state }) => `Refund $${state.amount}?`,
    })
    .listen('pay', or2('small', 'approved'), ({ state, payload }) => {
      ran.push('pay');
      state.paid = true;
      return payload;
    })
    .listen('decline', 'rejected', ({ payload }) => {
      ran.push('decline');
      return payload;
    });
}

const or2 = (a: string, b: string) => ({ kind: 'or' as const, of: [a, b] });

describe('human steps', () => {
  it('pause the run with what they ask, and go on in another process once answered', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const run = refundFlow(store, ran).run({ inputs: { id: 'r-1', amount: 250 } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const paused = await run.result;
    expect(paused.status).toBe('paused');
    expect(paused.pending).toEqual({
      kind: 'human',
      step: 'approval',
      nodeId: 'approval',
      prompt: 'Refund $250?',
      routes: ['approved', 'rejected'],
      payload: 'large',
    });
    expect(paused.trail).toEqual(['check', 'size']);
    expect(events.find((e) => e.type === 'flow.paused')).toMatchObject({ waiting: ['approval'] });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', status: 'paused' });

    // Another definition object, as another process would build it.
    const again: string[] = [];
    const flow = refundFlow(store, again);
    expect(await flow.getRun('r-1')).toMatchObject({ status: 'paused', pending: { step: 'approval' } });
    const out = await flow.resume('r-1', { route: 'approved', feedback: 'fine by me' });
    expect(out.status).toBe('completed');
    expect(again).toEqual(['pay']);
    expect(out.trail).toEqual(['check', 'size', 'approval', 'pay']);
    expect(out.outputs.approval).toEqual({ route: 'approved', feedback: 'fine by me' });
    expect(out.outputs.pay).toEqual({ route: 'approved', feedback: 'fine by me' });
    expect(out.emitted).toEqual(['check', 'size', 'large', 'approval', 'approved', 'pay']);
    expect(out.state).toMatchObject({ id: 'r-1', paid: true });
    expect((await flow.getRun('r-1'))?.status).toBe('completed');
    await expect(flow.resume('r-1', { route: 'approved' })).rejects.toMatchObject({ code: 'not_paused' });
  });

  it('refuse bad answers and change nothing: answer_required, unknown_route', async () => {
    const store = new MemoryStore();
    const flow = refundFlow(store, []);
    await flow.kickoff({ inputs: { id: 'r-2', amount: 500 } });
    await expect(flow.resume('r-2')).rejects.toMatchObject({ code: 'answer_required' });
    await expect(flow.resume('r-2', { route: 'maybe' })).rejects.toMatchObject({ code: 'unknown_route' });
    await expect(flow.resume('r-2', { route: 'approved', step: 'pay' })).rejects.toMatchObject({
      code: 'answer_required',
    });
    expect(await flow.getRun('r-2')).toMatchObject({ status: 'paused', trail: ['check', 'size'] });
    const out = await flow.resume('r-2', { route: 'rejected', feedback: 'too much' });
    expect(out.trail).toEqual(['check', 'size', 'approval', 'decline']);
    expect(out.state).toMatchObject({ paid: false });
  });

  it('need a store: refused at kickoff (store_required) before any step runs', async () => {
    const ran: string[] = [];
    await expect(refundFlow(undefined, ran).kickoff({ inputs: { amount: 5 } })).rejects.toMatchObject({
      code: 'store_required',
    });
    expect(ran).toEqual([]);
  });

  it('can be answered by forced routes in tests, without pausing or a store', async () => {
    const ran: string[] = [];
    const out = await refundFlow(undefined, ran).kickoff({
      inputs: { amount: 900 },
      routes: { size: 'large', approval: 'rejected' },
    });
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['check', 'size', 'approval', 'decline']);
  });

  it('are routers with the human’s choices for analysis and paths', () => {
    const flow = refundFlow(new MemoryStore(), []);
    const trails = flow.paths().map((p) => p.trail.join(' > '));
    expect(trails).toContain('check > size > approval > pay');
    expect(trails).toContain('check > size > approval > decline');
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.unreachableSteps).toEqual([]);
    expect(analysis.unusedRoutes).toEqual([]);
  });

  it('wait together when several are triggered at once; each answer names its step', async () => {
    const store = new MemoryStore();
    const flow = createFlow({ name: 'two', initialState: {}, store })
      .start('ask', () => 'q')
      .human('legal', 'ask', { routes: ['ok-legal', 'no-legal'], prompt: 'Legal?' })
      .human('finance', 'ask', { routes: ['ok-finance', 'no-finance'] })
      .listen('ship', and('ok-legal', 'ok-finance'), () => 'shipped');
    const paused = await flow.kickoff({ inputs: { id: 't' } });
    expect(paused.waiting?.map((w) => w.step)).toEqual(['legal', 'finance']);
    expect(paused.pending).toMatchObject({ kind: 'human' });
    expect(paused.pending?.kind === 'human' && paused.pending.prompt).toBe('Legal?');
    await expect(flow.resume('t', { route: 'ok-legal' })).rejects.toMatchObject({ code: 'answer_required' });
    const half = await flow.resume('t', { step: 'legal', route: 'ok-legal' });
    expect(half.status).toBe('paused');
    expect(half.pending).toMatchObject({ step: 'finance', prompt: 'finance' });
    const done = await flow.resume('t', { step: 'finance', route: 'ok-finance' });
    expect(done.status).toBe('completed');
    expect(done.trail).toEqual(['ask', 'legal', 'finance', 'ship']);
  });
});
