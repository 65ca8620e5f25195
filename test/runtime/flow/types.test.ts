import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createFlow, type FlowOutput } from '../../../src/index.js';

describe('flow builder types', () => {
  it('flows the free state type into every handler and the result', () => {
    const flow = createFlow({ name: 't', initialState: { count: 0, tags: [] as string[] } })
      .start('a', ({ state }) => {
        expectTypeOf(state.count).toEqualTypeOf<number>();
        expectTypeOf(state.id).toEqualTypeOf<string>();
        // @ts-expect-error: no such field in the state
        state.missing = 1;
      })
      .listen('b', 'a', ({ state }) => {
        expectTypeOf(state.tags).toEqualTypeOf<string[]>();
      });
    expectTypeOf(flow.kickoff).returns.resolves.toEqualTypeOf<
      FlowOutput<{ count: number; tags: string[] } & { id: string }>
    >();
  });

  it('infers the state from a zod schema', () => {
    createFlow({ name: 't', state: z.object({ amount: z.number() }) }).start('a', ({ state }) => {
      expectTypeOf(state.amount).toEqualTypeOf<number>();
    });
  });

  it('types a router’s return value by its routes', () => {
    createFlow({ name: 't', initialState: {} })
      .start('a', () => 'x')
      .router('r', 'a', () => 'yes', { routes: ['yes', 'no'] })
      // @ts-expect-error: 'maybe' is not one of the routes
      .router('r2', 'a', () => 'maybe', { routes: ['yes2', 'no2'] });
  });
});
