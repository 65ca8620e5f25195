import { describe, expect, it } from 'vitest';
import { createFlow, type StatecrewEvent } from '../../src/index.js';

type Item = { id: string; n: number };

describe('map steps over function items', () => {
  it('runs each item and gives their results in item order, each with its id and child run id', async () => {
    const seen: { itemId: string; runId: string; attempt: number; key: string }[] = [];
    const flow = createFlow({ name: 'squares', initialState: { list: [3, 1, 2] } })
      .start('begin', () => 'go')
      .map('square', 'begin', {
        items: ({ state }) => state.list,
        run: async (n, ctx) => {
          seen.push({ itemId: ctx.itemId, runId: ctx.runId, attempt: ctx.attempt, key: ctx.idempotencyKey });
          await new Promise((resolve) => setImmediate(resolve)); // later items settle first
          return n * n;
        },
      });
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    const id = out.state.id;
    expect(out.outputs.square).toEqual([
      { item: 3, itemId: '0', status: 'completed', output: 9 },
      { item: 1, itemId: '1', status: 'completed', output: 1 },
      { item: 2, itemId: '2', status: 'completed', output: 4 },
    ]);
    expect(seen.map((s) => s.runId)).toEqual([`${id}/square/0`, `${id}/square/1`, `${id}/square/2`]);
    expect(seen.every((s) => s.attempt === 1 && s.key === s.runId)).toBe(true);
  });

  it('runs at most `concurrency` items at once, starting them in item order', async () => {
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    const flow = createFlow({ name: 'bounded', initialState: {} }).start('begin', () => 'go');
    flow.map('work', 'begin', {
      items: () => Array.from({ length: 20 }, (_, i) => i),
      concurrency: 3,
      run: async (i: number) => {
        order.push(i);
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Items take turns of different lengths, so slots free up out of order.
        for (let turn = 0; turn < (i % 4) + 1; turn += 1) await new Promise((r) => setImmediate(r));
        inFlight -= 1;
        return i;
      },
    });
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    expect(most).toBe(3);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((out.outputs.work as { output: number }[]).map((r) => r.output)).toEqual(order);
  });

  it('names items by itemId and passes state and inputs to each', async () => {
    const flow = createFlow({ name: 'named', initialState: { docs: [] as Item[], factor: 10 } })
      .start('load', ({ state }) => {
        state.docs = [
          { id: 'a', n: 1 },
          { id: 'b', n: 2 },
        ];
      })
      .map('scale', 'load', {
        items: ({ state }) => state.docs,
        itemId: (doc) => doc.id,
        run: (doc, ctx) => doc.n * ctx.state.factor + Number(ctx.inputs.plus ?? 0),
      });
    const out = await flow.kickoff({ inputs: { plus: 1 } });
    expect(out.outputs.scale).toEqual([
      { item: { id: 'a', n: 1 }, itemId: 'a', status: 'completed', output: 11 },
      { item: { id: 'b', n: 2 }, itemId: 'b', status: 'completed', output: 21 },
    ]);
  });

  it('publishes flow.item events with running counts', async () => {
    const flow = createFlow({ name: 'counted', initialState: {} })
      .start('begin', () => 'go')
      .map('upper', 'begin', {
        items: () => ['x', 'y'],
        concurrency: 1,
        run: (s: string) => s.toUpperCase(),
      });
    const events: StatecrewEvent[] = [];
    const run = flow.run();
    run.events$.subscribe((e) => events.push(e));
    await run.result;
    const items = events.flatMap((e) => (e.type === 'flow.item' ? [e] : []));
    expect(items.map((e) => [e.itemId, e.status, e.attempt, e.done, e.failed, e.total])).toEqual([
      ['0', 'started', 1, 0, 0, 2],
      ['0', 'completed', 1, 1, 0, 2],
      ['1', 'started', 1, 1, 0, 2],
      ['1', 'completed', 1, 2, 0, 2],
    ]);
    expect(items[0]).toMatchObject({ step: 'upper', nodeId: 'upper', childId: `${run.id}/upper/0` });
  });

  it('gives an empty output for an empty list', async () => {
    const out = await createFlow({ name: 'empty', initialState: {} })
      .start('begin', () => 'go')
      .map('work', 'begin', { items: () => [], run: () => 1 })
      .kickoff();
    expect(out.status).toBe('completed');
    expect(out.outputs.work).toEqual([]);
  });

  const refused: [string, Record<string, unknown>, RegExp, Record<string, unknown>][] = [
    ['no array', { items: () => 'abc' }, /must give an array, got string abc/, {}],
    ['too many items', { items: () => [1, 2, 3], maxItems: 2 }, /3 items, more than maxItems \(2\)/, {}],
    ['an empty id', { itemId: () => '' }, /item #0 has the id "", which is not 1–200/, { index: 0 }],
    [
      'an id with a slash',
      { itemId: (_: unknown, i: number) => `a/${i}` },
      /contains "\/"/,
      { itemId: 'a/0' },
    ],
    [
      'a repeated id',
      { itemId: (x: number) => (x === 0 ? 'first' : 'same') },
      /item #2 .*item #1 has/,
      { index: 2 },
    ],
    ['an id that is not text', { itemId: () => 7 }, /which is not text/, { itemId: '7' }],
    ['a too long id', { itemId: () => 'x'.repeat(201) }, /not 1–200 characters/, {}],
  ];
  for (const [what, options, message, details] of refused) {
    it(`fails the step with invalid_map_items for ${what}, before any item runs`, async () => {
      let ran = 0;
      const out = await createFlow({ name: 'bad', initialState: {} })
        .start('begin', () => 'go')
        .map('work', 'begin', {
          items: () => [0, 1, 2],
          run: () => {
            ran += 1;
          },
          ...options,
        } as never)
        .kickoff();
      expect(out.status).toBe('failed');
      expect(out.failures.work).toMatchObject({ code: 'invalid_map_items', retryable: false });
      expect(out.failures.work?.message).toMatch(message);
      expect(out.failures.work?.details).toMatchObject({ flow: 'bad', step: 'work', ...details });
      expect(ran).toBe(0);
    });
  }
});
