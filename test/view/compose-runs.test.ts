import { describe, expect, it } from 'vitest';
import { createFlow, failed, MemoryStore, type StatecrewEvent, type Store } from '../../src/index.js';
import { type RunView, renderRunView, toFlowView } from '../../src/view/index.js';
import { storedRunView } from '../../src/view/stored-view.js';
import { reviewFlow, summarizeCrew } from './compose-fixtures.js';

const node = (view: RunView, id: string) => {
  const found = view.nodes.find((n) => n.id === id);
  if (found === undefined) throw new Error(`no node ${id}`);
  return found;
};

/** A digest of real runs: its documents summarized by a map of crews, then reviewed by a child flow. */
function digest(store?: Store) {
  return createFlow({ name: 'digest', initialState: { docs: ['a', 'b', 'c'] }, store })
    .start('fetch', ({ state }) => state.docs)
    .map('summaries', 'fetch', { items: ({ state }) => state.docs, run: summarizeCrew(), concurrency: 2 })
    .flow('review', 'summaries', reviewFlow())
    .listen('report', 'review', () => 'reported');
}

/** A map of function items where `b` fails: with `allowFailures`, or handled by `failed(step)`. */
function checks(allowFailures: boolean) {
  return createFlow({ name: 'checks', initialState: { names: ['a', 'b', 'c', 'd'] } })
    .start('list', ({ state }) => state.names)
    .map('check', 'list', {
      items: ({ state }) => state.names,
      itemId: (name) => `n-${name}`,
      run: (name) => {
        if (name === 'b') throw new Error(`no ${name}`);
        return name.toUpperCase();
      },
      allowFailures,
    })
    .listen('after', 'check', () => 'went on')
    .listen('handled', failed('check'), () => 'handled');
}

/** Runs `flow` and collects the events its run published. */
async function collected<T>(run: {
  events$: { subscribe(f: (e: StatecrewEvent) => void): unknown };
  result: Promise<T>;
}) {
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return { output: await run.result, events };
}

describe('pictures of composed flows drawn from real runs', () => {
  it("counts a real map of crews by its items' events: done counts the completed items", async () => {
    const flow = digest(new MemoryStore());
    const { output, events } = await collected(flow.run({ inputs: { id: 'd-1' } }));
    const items = events.filter((e) => e.type === 'flow.item');
    // The runtime's done counts completed items only; failed ones apart.
    expect(items.at(-1)).toMatchObject({ done: 3, failed: 0, total: 3, runId: 'd-1' });
    const view = toFlowView(flow, { output, events });
    const map = node(view, 'summaries');
    expect(map.status).toBe('completed');
    expect(map.map?.counts).toEqual({ total: 3, completed: 3, failed: 0, running: 0 });
    expect(map.map?.items?.map((i) => [i.itemId, i.status, i.childId])).toEqual([
      ['0', 'completed', 'd-1/summaries/0'],
      ['1', 'completed', 'd-1/summaries/1'],
      ['2', 'completed', 'd-1/summaries/2'],
    ]);
    // The crews' own run events are the items', not the flow's: the run is still the flow's, paused.
    expect(view.status).toBe('paused');
    expect(renderRunView(view)).toContain('3/3 done');
  });

  it('shows a failed item handled by failed(step), and allowFailures going on with it counted', async () => {
    const stopped = checks(false);
    const first = await collected(stopped.run({ inputs: { id: 'c-1' } }));
    expect(first.output.outputs.handled).toBe('handled');
    const view = toFlowView(stopped, first);
    const check = node(view, 'check');
    expect(check.status).toBe('failed');
    expect(check.map?.counts?.failed).toBe(1);
    expect(check.map?.items?.find((i) => i.itemId === 'n-b')).toMatchObject({
      status: 'failed',
      childId: 'c-1/check/n-b',
      error: 'no b',
    });
    expect(node(view, 'handled').status).toBe('completed');

    const going = checks(true);
    const second = await collected(going.run({ inputs: { id: 'c-2' } }));
    expect(second.output.outputs.after).toBe('went on');
    const counts = node(toFlowView(going, second), 'check').map?.counts;
    expect(counts).toEqual({ total: 4, completed: 3, failed: 1, running: 0 });
    expect(renderRunView(toFlowView(going, second))).toContain('3/4 done · 1 failed');
  });

  it("draws a real subflow paused at its child's human step, then done once answered through the parent", async () => {
    const flow = digest(new MemoryStore());
    const { output, events } = await collected(flow.run({ inputs: { id: 'd-2' } }));
    expect(output.status).toBe('paused');
    // The child's events come relayed with its own run id, tagged with the parent's step.
    const relayed = events.filter((e) => e.runId === 'd-2/review');
    expect(relayed.length).toBeGreaterThan(0);
    expect(relayed.every((e) => e.step === 'review')).toBe(true);
    const pause = events.find((e) => e.type === 'flow.paused' && e.runId === 'd-2');
    expect(pause).toMatchObject({
      waitingFor: [{ kind: 'flow', step: 'review', runId: 'd-2/review', path: 'review › approve' }],
    });
    expect(output.pending).toMatchObject({ kind: 'flow', path: 'review › approve', runId: 'd-2/review' });
    const view = toFlowView(flow, { output, events });
    const review = node(view, 'review');
    expect(review.status).toBe('paused');
    expect(review.subflow).toEqual({
      flow: 'review',
      runId: 'd-2/review',
      waitsAt: 'review › approve',
      steps: [
        { name: 'draft', kind: 'step', status: 'completed' },
        { name: 'approve', kind: 'human', status: 'paused' },
        { name: 'publish', kind: 'step', status: 'waiting' },
      ],
    });
    expect(renderRunView(view)).toContain('▣ flow · waits at review › approve');
  });

  it('draws stored runs of a real map and a real subflow from their kept events', async () => {
    const store = new MemoryStore();
    const paused = await digest(store).run({ inputs: { id: 'd-3' }, events: 'store' }).result;
    expect(paused.status).toBe('paused');
    const head = async (id: string) => {
      const found = await store.readRun(id);
      if (found === undefined) throw new Error(`no stored run ${id}`);
      return found;
    };
    const before = await storedRunView(store, await head('d-3'));
    expect(node(before, 'summaries')).toMatchObject({
      kind: 'map',
      map: { counts: { total: 3, completed: 3, failed: 0, running: 0 } },
    });
    expect(node(before, 'review')).toMatchObject({
      kind: 'flow',
      status: 'paused',
      subflow: { runId: 'd-3/review', waitsAt: 'review › approve' },
    });
    // Each crew item is a stored crew run of its own, and the child flow a stored flow run.
    expect(await store.readRun('d-3/summaries/1')).toMatchObject({ kind: 'crew' });
    expect(await store.readRun('d-3/review')).toMatchObject({ kind: 'flow', name: 'review' });

    const done = await digest(store).resume('d-3', { route: 'yes', step: 'review › approve' });
    expect(done.status).toBe('completed');
    // The answer through the parent resumes the child (its own flow.resumed): the parent waits no more.
    const after = await storedRunView(store, await head('d-3'));
    expect(node(after, 'review').status).toBe('completed');
    expect(node(after, 'review').subflow?.waitsAt).toBeUndefined();
    expect(node(after, 'report').status).toBe('completed');
    const child = await storedRunView(store, await head('d-3/review'));
    expect(child.nodes.map((n) => [n.id, n.status])).toEqual([
      ['draft', 'completed'],
      ['approve', 'completed'],
      ['publish', 'completed'],
    ]);
  });
  it('draws a stored map and subflow run that kept no events from its snapshot', async () => {
    const store = new MemoryStore();
    const paused = await digest(store).run({ inputs: { id: 'd-4' } }).result;
    expect(paused.status).toBe('paused');
    const head = await store.readRun('d-4');
    if (head === undefined) throw new Error('no stored run d-4');
    const view = await storedRunView(store, head);
    expect(node(view, 'summaries').map).toMatchObject({
      counts: { total: 3, completed: 3, failed: 0, running: 0 },
      items: [{ itemId: '0', childId: 'd-4/summaries/0' }, { itemId: '1' }, { itemId: '2' }],
    });
    expect(node(view, 'review')).toMatchObject({
      status: 'paused',
      subflow: { runId: 'd-4/review', waitsAt: 'review › approve' },
    });
  });
});
