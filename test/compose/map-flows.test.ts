import { describe, expect, it } from 'vitest';
import { createFlow, isStatecrewError, MemoryStore } from '../../src/index.js';

/** A child flow that doubles its `n`, failing for a negative one; counts its step runs. */
function doubler(calls: number[]) {
  return createFlow({ name: 'doubler', initialState: { n: 0 } }).start('double', ({ state }) => {
    calls.push(state.n);
    if (state.n < 0) throw new Error(`negative ${state.n}`);
    return state.n * 2;
  });
}

describe('map steps over flow items', () => {
  it("runs a child flow run per item, kept in the parent's store under the item's id", async () => {
    const calls: number[] = [];
    const store = new MemoryStore();
    const flow = createFlow({ name: 'doubles', initialState: { list: [1, 2, 3] } })
      .start('begin', () => 'go')
      .map('each', 'begin', {
        items: ({ state }) => state.list,
        run: doubler(calls),
        inputs: (n) => ({ n }),
        itemId: (n) => `n${n}`,
      });
    const out = await flow.kickoff({ store, inputs: { id: 'p1' } });
    expect(out.status).toBe('completed');
    expect(out.outputs.each).toEqual([
      { item: 1, itemId: 'n1', status: 'completed', output: 2 },
      { item: 2, itemId: 'n2', status: 'completed', output: 4 },
      { item: 3, itemId: 'n3', status: 'completed', output: 6 },
    ]);
    expect(calls.sort()).toEqual([1, 2, 3]);
    const child = await store.readRun('p1/each/n2');
    expect(child).toMatchObject({ kind: 'flow', name: 'doubler', status: 'completed' });
    expect(child?.data).toMatchObject({ parent: { runId: 'p1', nodeId: 'each', step: 'each' } });
  });

  it('fails an item whose child flow failed, and fails the step unless it allows failures', async () => {
    const calls: number[] = [];
    const child = doubler(calls);
    const strict = createFlow({ name: 'strict', initialState: {} })
      .start('begin', () => 'go')
      .map('each', 'begin', { items: () => [1, -1], run: child, inputs: (n) => ({ n }), concurrency: 1 });
    const failed = await strict.kickoff();
    expect(failed.status).toBe('failed');
    expect(failed.failures.each).toMatchObject({ code: 'map_item_failed' });
    expect(failed.failures.each?.message).toMatch(
      /item "1".*Flow "doubler" run .*\/each\/1 failed at step "double": negative -1/,
    );

    const lenient = createFlow({ name: 'lenient', initialState: {} })
      .start('begin', () => 'go')
      .map('each', 'begin', {
        items: () => [-2, 5],
        run: child,
        inputs: (n) => ({ n }),
        allowFailures: true,
      });
    const out = await lenient.kickoff();
    expect(out.status).toBe('completed');
    const results = out.outputs.each as { status: string; output?: unknown; error?: { message: string } }[];
    expect(results.map((r) => r.status)).toEqual(['failed', 'completed']);
    expect(results[0]?.error?.message).toMatch(/negative -2/);
    expect(results[1]?.output).toBe(10);
  });

  it('goes on with a stored run: a resume runs the failed item again, not the completed ones', async () => {
    const calls: number[] = [];
    const store = new MemoryStore();
    let down = true; // a service item 3 needs is down on the first run
    const child = createFlow({ name: 'fetcher', initialState: { n: 0 } }).start('fetch', ({ state }) => {
      calls.push(state.n);
      if (state.n === 3 && down) throw new Error('service down');
      return state.n * 2;
    });
    const flow = createFlow({ name: 'again', initialState: {} })
      .start('begin', () => 'go')
      .map('each', 'begin', { items: () => [1, 2, 3], run: child, inputs: (n) => ({ n }), concurrency: 1 });
    const first = await flow.kickoff({ store, inputs: { id: 'r1' } });
    expect(first.status).toBe('failed');
    expect(calls).toEqual([1, 2, 3]);
    down = false;
    const out = await flow.resume('r1', undefined, { store });
    expect(out.status).toBe('completed');
    expect(calls).toEqual([1, 2, 3, 3]); // only the failed item's child run went on, its step again
    expect((out.outputs.each as { output: unknown }[]).map((r) => r.output)).toEqual([2, 4, 6]);
    expect(await store.readRun('r1/each/2')).toMatchObject({ status: 'completed' });
  });

  it('refuses, when the step is built, a flow that could pause for a human', () => {
    const asks = createFlow({ name: 'asks', initialState: {} })
      .start('a', () => 1)
      .human('ok', 'a', { routes: ['yes', 'no'] });
    try {
      createFlow({ name: 'parent', initialState: {} })
        .start('begin', () => 'go')
        .map('each', 'begin', { items: () => [1], run: asks });
      expect.unreachable();
    } catch (error) {
      expect(isStatecrewError(error, 'invalid_option')).toBe(true);
      expect((error as Error).message).toMatch(/"each".*cannot pause for a human.*"asks".*human step "ok"/);
    }
  });
});
