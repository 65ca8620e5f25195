import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFlow, InvalidInputsError, isStatecrewError, MemoryStore } from '../../../src/index.js';

describe('flow state', () => {
  it('keeps mutations across steps and gives each run a fresh copy', async () => {
    const flow = createFlow({ name: 'counter', initialState: { count: 0, items: [] as string[] } })
      .start('one', ({ state }) => {
        state.count += 1;
        state.items.push('one');
      })
      .listen('two', 'one', ({ state }) => {
        state.count += 1;
        state.items.push('two');
        return state.count;
      });
    const first = await flow.kickoff();
    expect(first.state.count).toBe(2);
    expect(first.output).toBe(2);
    const second = await flow.kickoff();
    expect(second.state).toMatchObject({ count: 2, items: ['one', 'two'] });
    expect(second.id).not.toBe(first.id);
  });

  it('runs concurrent kickoffs of one definition independently', async () => {
    const flow = createFlow({ name: 'concurrent', initialState: { n: 0 } }).start(
      'inc',
      async ({ state }) => {
        await Promise.resolve();
        state.n += 1;
        return state.n;
      },
    );
    const outs = await Promise.all([flow.kickoff(), flow.kickoff(), flow.kickoff()]);
    expect(outs.map((o) => o.state.n)).toEqual([1, 1, 1]);
    expect(new Set(outs.map((o) => o.id)).size).toBe(3);
  });

  it('has one stable id in every step and in the result, or the one given in inputs.id', async () => {
    const seen: string[] = [];
    const flow = createFlow({ name: 'ids', initialState: {} })
      .start('a', ({ state, flowId }) => {
        seen.push(state.id, flowId);
      })
      .listen('b', 'a', ({ state, flowId }) => {
        seen.push(state.id, flowId);
      });
    const out = await flow.kickoff();
    expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen).toEqual([out.id, out.id, out.id, out.id]);
    expect(out.state.id).toBe(out.id);
    expect((await flow.kickoff({ inputs: { id: 'order-42' } })).id).toBe('order-42');
  });

  it('keeps the run on its id when a step writes state.id: that step fails (invalid_state) and the id stays', async () => {
    const store = new MemoryStore();
    const flow = createFlow({ name: 'rename', initialState: { id: '' }, store })
      .start('a', ({ state }) => {
        state.id = 'test-uuid';
        return 'a';
      })
      .start(
        'b',
        ({ state }) => {
          state.id = 'again';
        },
        { retries: 1, retryDelayMs: 0 },
      );
    const out = await flow.kickoff({ inputs: { id: 'run-1' } });
    expect(out.id).toBe('run-1');
    expect(out.state.id).toBe('run-1');
    expect(out.status).toBe('failed');
    for (const step of ['a', 'b']) {
      expect(out.failures[step]).toMatchObject({ code: 'invalid_state', details: { path: 'state.id' } });
    }
    expect(out.errors.a).toContain('changed state.id from "run-1" to "test-uuid"');
    expect((await flow.getRun(out.id))?.status).toBe('failed');
    // The stored run goes on under its id: its failed steps run again (and fail again).
    await expect(flow.resume(out.id)).resolves.toMatchObject({ id: 'run-1', status: 'failed' });
  });

  it('refuses an initial state no deep copy can take (invalid_option), at createFlow and at kickoff', async () => {
    const lock = { held: false, release: () => undefined };
    const refused = (() => {
      try {
        createFlow({ name: 'locked', initialState: { counter: 0, lock } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isStatecrewError(refused, 'invalid_option')).toBe(true);
    expect((refused as Error).message).toMatch(
      /^createFlow: option "initialState" must be .*could not be cloned/,
    );

    const initial: Record<string, unknown> = { counter: 0 };
    const flow = createFlow({ name: 'locked-later', initialState: initial }).start('one', () => 'ran');
    initial.lock = lock;
    await expect(flow.kickoff()).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringMatching(/^Flow "locked-later": option "initialState" must be /),
    });
  });

  it('merges inputs into the state before the start steps', async () => {
    const flow = createFlow({ name: 'inputs', initialState: { topic: 'none', depth: 1 } }).start(
      'read',
      ({ state, inputs }) => `${state.topic}/${state.depth}/${String(inputs.topic)}`,
    );
    expect((await flow.kickoff({ inputs: { topic: 'AI' } })).output).toBe('AI/1/AI');
  });

  it('validates inputs against a state schema before any step (invalid_inputs)', async () => {
    let ran = false;
    const flow = createFlow({
      name: 'typed',
      state: z.object({ amount: z.number().min(0), note: z.string().default('') }),
    }).start('go', ({ state }) => {
      ran = true;
      return state.amount;
    });
    expect((await flow.kickoff({ inputs: { amount: 5 } })).state).toMatchObject({ amount: 5, note: '' });
    ran = false;
    const error = await flow.kickoff({ inputs: { amount: -1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputsError);
    expect((error as Error).message).toMatch(/^Inputs of flow "typed" do not fit its state: amount: /);
    expect(ran).toBe(false);
  });

  it('fails the step that leaves the state invalid, with the issue paths', async () => {
    const flow = createFlow({ name: 'typed', state: z.object({ items: z.array(z.string()) }) })
      .start('ok', ({ state }) => {
        state.items.push('fine');
      })
      .listen('bad', 'ok', ({ state }) => {
        (state.items as unknown[]).push(42);
      })
      .listen('after', 'bad', () => 'never');
    const out = await flow.kickoff({ inputs: { items: [] } });
    expect(out.status).toBe('failed');
    expect(out.errors.bad).toMatch(/^Step "bad" left the state invalid: items\.1: .* \(invalid_state\)$/);
    expect(out.trail).toEqual(['ok']);
  });
});
