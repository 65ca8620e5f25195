import { describe, expect, it } from 'vitest';
import { and, createFlow, or } from '../../../src/index.js';

/** A promise the test resolves by hand, to decide which step of a round finishes first. */
function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function seedFlow() {
  return createFlow({ name: 'review', initialState: { score: 0, seen: [] as string[] } })
    .start('draft', ({ state }) => {
      state.seen.push('draft');
      return 'v1';
    })
    .router('grade', 'draft', ({ state }) => (state.score >= 7 ? 'approve' : 'revise'), {
      routes: ['approve', 'revise'],
    })
    .listen('publish', 'approve', ({ state, payload }) => {
      state.seen.push(`publish:${String(payload)}`);
      return 'published';
    })
    .listen('rework', 'revise', ({ state }) => {
      state.seen.push('rework');
      return 'reworked';
    });
}

describe('flow semantics', () => {
  it('follows the approve branch for score 9 and never runs the other', async () => {
    const out = await seedFlow().kickoff({ inputs: { score: 9 } });
    expect(out.trail).toEqual(['draft', 'grade', 'publish']);
    expect(out.state.seen).toEqual(['draft', 'publish:approve']);
    expect(out.emitted).toEqual(['draft', 'grade', 'approve', 'publish']);
    expect(out.output).toBe('published');
    expect(out.status).toBe('completed');
    expect(out.outputs).toEqual({ draft: 'v1', grade: 'approve', publish: 'published' });
  });

  it('follows the revise branch for score 3 and never runs the other', async () => {
    const out = await seedFlow().kickoff({ inputs: { score: 3 } });
    expect(out.trail).toEqual(['draft', 'grade', 'rework']);
    expect(out.state.seen).toEqual(['draft', 'rework']);
    expect(out.outputs).not.toHaveProperty('publish');
  });

  it('lists the steps of one round in definition order, whatever finishes first', async () => {
    const slow = deferred();
    const finished: string[] = [];
    const flow = createFlow({ name: 'round', initialState: {} })
      .start('a', async () => {
        await slow.promise;
        finished.push('a');
        return 'A';
      })
      .start('b', () => {
        finished.push('b');
        slow.resolve();
        return 'B';
      })
      .listen('c', and('a', 'b'), () => 'C');
    const out = await flow.kickoff();
    expect(finished).toEqual(['b', 'a']);
    expect(out.trail).toEqual(['a', 'b', 'c']);
    expect(out.emitted).toEqual(['a', 'b', 'c']);
  });

  it('runs the join of a diamond once, last', async () => {
    const runs: string[] = [];
    const step = (name: string) => () => {
      runs.push(name);
      return name;
    };
    const flow = createFlow({ name: 'diamond', initialState: {} })
      .start('a', step('a'))
      .listen('b', 'a', step('b'))
      .listen('c', 'a', step('c'))
      .listen('d', and('b', 'c'), step('d'));
    const out = await flow.kickoff();
    expect(runs).toEqual(['a', 'b', 'c', 'd']);
    expect(out.trail).toEqual(['a', 'b', 'c', 'd']);
  });

  it('runs an or once when both branches complete in the same round', async () => {
    let runs = 0;
    const flow = createFlow({ name: 'or-same', initialState: {} })
      .start('a', () => 'a')
      .listen('b', 'a', () => 'from b')
      .listen('c', 'a', () => 'from c')
      .listen('either', or('b', 'c'), ({ payload }) => {
        runs += 1;
        return payload;
      });
    const out = await flow.kickoff();
    expect(runs).toBe(1);
    expect(out.outputs.either).toBe('from b');
  });

  it('runs an or once when its branches complete in different rounds', async () => {
    let runs = 0;
    const flow = createFlow({ name: 'or-apart', initialState: {} })
      .start('a', () => 'a')
      .listen('b', 'a', () => 'from b')
      .listen('late', 'b', () => 'late')
      .listen('either', or('b', 'late'), ({ payload }) => {
        runs += 1;
        return payload;
      });
    const out = await flow.kickoff();
    expect(runs).toBe(1);
    expect(out.trail).toEqual(['a', 'b', 'late', 'either']);
    expect(out.outputs.either).toBe('from b');
  });

  it('gives an and the output of the trigger that completed last, and a label trigger its label', async () => {
    const flow = createFlow({ name: 'payloads', initialState: {} })
      .start('a', () => 'A')
      .listen('b', 'a', () => 'B')
      .listen('both', and('b', 'a'), ({ payload }) => payload)
      .router('pick', 'a', () => 'left', { routes: ['left', 'right'] })
      .listen('onLeft', 'left', ({ payload }) => payload);
    const out = await flow.kickoff();
    expect(out.outputs.both).toBe('B');
    expect(out.outputs.onLeft).toBe('left');
  });

  it('runs several start steps in round 1', async () => {
    const flow = createFlow({ name: 'starts', initialState: {} })
      .start('one', () => 1)
      .start('two', () => 2)
      .listen('sum', and('one', 'two'), ({ outputs }) => Number(outputs.one) + Number(outputs.two));
    const out = await flow.kickoff();
    expect(out.trail).toEqual(['one', 'two', 'sum']);
    expect(out.output).toBe(3);
  });

  it('joins a router label with a step in an and', async () => {
    const flow = createFlow({ name: 'label-and', initialState: {} })
      .start('fetch', () => 'data')
      .router('check', 'fetch', () => 'valid', { routes: ['valid', 'invalid'] })
      .listen('enrich', 'fetch', () => 'enriched')
      .listen('store', and('valid', 'enrich'), ({ outputs }) => `stored ${String(outputs.enrich)}`);
    const out = await flow.kickoff();
    expect(out.trail).toEqual(['fetch', 'check', 'enrich', 'store']);
    expect(out.output).toBe('stored enriched');
  });

  it('chains routers: router → label → router → label → listener', async () => {
    const flow = createFlow({ name: 'chain', initialState: { size: 'big', urgent: true } })
      .start('intake', () => 'ticket')
      .router('bySize', 'intake', ({ state }) => (state.size === 'big' ? 'large' : 'small'), {
        routes: ['large', 'small'],
      })
      .router('byUrgency', 'large', ({ state }) => (state.urgent ? 'now' : 'later'), {
        routes: ['now', 'later'],
      })
      .listen('page', 'now', () => 'paged')
      .listen('queue', 'later', () => 'queued');
    const out = await flow.kickoff();
    expect(out.trail).toEqual(['intake', 'bySize', 'byUrgency', 'page']);
    expect(out.emitted).toEqual(['intake', 'bySize', 'large', 'byUrgency', 'now', 'page']);
  });

  it('routes on a falsy-looking label such as "0"', async () => {
    const flow = createFlow({ name: 'zero', initialState: {} })
      .start('s', () => 0)
      .router('r', 's', () => '0', { routes: ['0', '1'] })
      .listen('zero', '0', ({ payload }) => `got ${String(payload)}`)
      .listen('one', '1', () => 'never');
    const out = await flow.kickoff();
    expect(out.trail).toEqual(['s', 'r', 'zero']);
    expect(out.output).toBe('got 0');
  });

  it('fails a router that returns a label outside its routes (unknown_route)', async () => {
    const flow = createFlow({ name: 'bad-route', initialState: {} })
      .start('s', () => 's')
      .router('r', 's', () => 'sideways' as 'up', { routes: ['up', 'down'] })
      .listen('up-step', 'up', () => 'never');
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors.r).toBe(
      'Router "r" returned "sideways", which is not one of its routes: "up", "down" (unknown_route)',
    );
    expect(out.trail).toEqual(['s']);
  });
});

describe('deliberate differences from CrewAI', () => {
  it('lets both branches feeding an or run to completion (no racing cancellation)', async () => {
    const slow = deferred();
    const finished: string[] = [];
    const flow = createFlow({ name: 'no-race', initialState: {} })
      .start('go', () => 'go')
      .listen('fast', 'go', () => {
        finished.push('fast');
        slow.resolve();
        return 'fast';
      })
      .listen('slow', 'go', async () => {
        await slow.promise;
        finished.push('slow');
        return 'slow';
      })
      .listen('first', or('fast', 'slow'), ({ payload }) => payload);
    const out = await flow.kickoff();
    expect(finished).toEqual(['fast', 'slow']);
    expect(out.outputs).toMatchObject({ fast: 'fast', slow: 'slow', first: 'fast' });
  });

  it('runs every router’s downstream when sibling routers fire on the same trigger', async () => {
    const flow = createFlow({ name: 'siblings', initialState: {} })
      .start('order', () => 'order')
      .router('payment', 'order', () => 'paid', { routes: ['paid', 'unpaid'] })
      .router('stock', 'order', () => 'inStock', { routes: ['inStock', 'backorder'] })
      .listen('charge', 'paid', () => 'charged')
      .listen('ship', 'inStock', () => 'shipped');
    const out = await flow.kickoff();
    expect(out.trail).toEqual(['order', 'payment', 'stock', 'charge', 'ship']);
  });
});
