import { describe, expect, it } from 'vitest';
import { createFlow, MemoryStore, type StatecrewEvent, type Store } from '../../src/index.js';

/** A child flow: drafts, then a human approves or rejects. */
function reviewFlow(ran: string[]) {
  return createFlow({ name: 'review', initialState: { draft: '', notes: [] as string[] } })
    .start('write', ({ state }) => {
      ran.push('write');
      return `draft of ${state.draft}`;
    })
    .human('approve', 'write', { routes: ['ok', 'redo'], prompt: 'Publish it?' })
    .listen('done', 'ok', ({ payload }) => {
      ran.push('done');
      return { published: true, answer: payload };
    });
}

function parentFlow(store: Store | undefined, ran: string[], child = reviewFlow(ran)) {
  return createFlow({ name: 'publish', initialState: { topic: 'cats' }, store })
    .start('plan', ({ state }) => {
      ran.push('plan');
      return state.topic;
    })
    .flow('review', 'plan', child, { inputs: ({ state }) => ({ draft: state.topic }) })
    .listen('ship', 'review', ({ payload }) => {
      ran.push('ship');
      return payload;
    });
}

describe('subflows', () => {
  it("a flow step's output is its child's, and a child's human is answered through the parent", async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const run = parentFlow(store, ran).run({ inputs: { id: 'p-1' } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const paused = await run.result;
    expect(paused.status).toBe('paused');
    expect(paused.pending).toMatchObject({
      kind: 'flow',
      step: 'review',
      flow: 'review',
      runId: 'p-1/review',
      path: 'review › approve',
      pending: [{ kind: 'human', step: 'approve', routes: ['ok', 'redo'] }],
    });
    const own = events.filter((e) => e.type === 'flow.paused' && e.step === undefined);
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({
      waitingFor: [{ kind: 'flow', step: 'review', runId: 'p-1/review', path: 'review › approve' }],
    });
    expect(ran).toEqual(['plan', 'write']);

    const again: string[] = [];
    const out = await parentFlow(store, again).resume('p-1', { route: 'ok', step: 'review › approve' });
    expect(out.status).toBe('completed');
    expect(again).toEqual(['done', 'ship']);
    expect(out.outputs.review).toEqual({ published: true, answer: { route: 'ok', feedback: undefined } });
    expect(out.output).toEqual(out.outputs.review);
  });
});

describe('subflows nested two deep', () => {
  it('name the innermost wait by its whole path, and an answer by that path reaches it', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const middle = parentFlow(undefined, ran);
    const outer = createFlow({ name: 'outer', initialState: {}, store })
      .start('begin', () => 'go')
      .flow('inner', 'begin', middle);
    const paused = await outer.kickoff({ inputs: { id: 'n-1' } });
    expect(paused.status).toBe('paused');
    expect(paused.pending).toMatchObject({
      kind: 'flow',
      runId: 'n-1/inner',
      path: 'inner › review › approve',
      pending: [{ kind: 'flow', runId: 'n-1/inner/review', path: 'review › approve' }],
    });
    const { leafWaits } = await import('../../src/machines/flow/waits.js');
    expect(leafWaits(paused.waiting ?? [paused.pending as never]).map((l) => l.path)).toEqual([
      ['inner', 'review', 'approve'],
    ]);
    const wrong = await outer.resume('n-1', { route: 'ok', step: 'inner › review › nope' }).catch((e) => e);
    expect(wrong).toMatchObject({ code: 'answer_required' });
    const out = await outer.resume('n-1', { route: 'ok', step: 'inner › review › approve' });
    expect(out.status).toBe('completed');
    expect(out.output).toEqual({ published: true, answer: { route: 'ok', feedback: undefined } });
    expect(ran).toEqual(['plan', 'write', 'done', 'ship']);
    expect((await store.readRun('n-1/inner/review'))?.data).toMatchObject({
      parent: { runId: 'n-1/inner', nodeId: 'review', step: 'review' },
    });
  });
});
