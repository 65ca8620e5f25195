import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFlow, MemoryStore, StatecrewError, type StatecrewEvent } from '../../../src/index.js';
import { createManualClock } from '../../../src/testing.js';
import { toFlowView } from '../../../src/view/index.js';

/** An error a retry may mend, like a model provider's 503. */
const unavailable = () => Object.assign(new Error('try later'), { status: 503 });

describe('flow step retries', () => {
  it('tries a failing step again until it succeeds, and the run never saw the failures', async () => {
    let calls = 0;
    const flow = createFlow({ name: 'charge', initialState: { charged: 0 } })
      .start(
        'charge',
        ({ state }) => {
          calls += 1;
          if (calls < 3) throw unavailable();
          state.charged += 1;
          return 'paid';
        },
        { retries: 2, retryDelayMs: 0 },
      )
      .listen('ship', 'charge', ({ payload }) => `shipped after ${String(payload)}`);
    const events: StatecrewEvent[] = [];
    const run = flow.run();
    run.events$.subscribe((event) => events.push(event));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(calls).toBe(3);
    expect(out.state.charged).toBe(1);
    expect(out.errors).toEqual({});
    expect(out.trail).toEqual(['charge', 'ship']);
    const steps = events.filter((e) => e.type === 'flow.step' && e.name === 'charge');
    expect(steps.map((e) => (e.type === 'flow.step' ? [e.status, e.attempt] : []))).toEqual([
      ['started', undefined],
      ['retrying', 2],
      ['retrying', 3],
      ['completed', undefined],
    ]);
    const retrying = events.filter((e) => e.type === 'node.retrying');
    expect(retrying).toHaveLength(2);
    expect(retrying[0]).toMatchObject({ step: 'charge', attempt: 2 });
    expect(events.find((e) => e.type === 'node.completed' && e.step === 'charge')).toMatchObject({
      attempts: 3,
    });
    // The run view counts the attempts of the step's one run.
    const charge = toFlowView(flow, { output: out, events }).nodes.find((n) => n.id === 'charge');
    expect(charge?.runs).toMatchObject([{ status: 'completed', attempts: 3, retries: 2 }]);
  });

  it('fails the run as before once the retries are spent', async () => {
    let calls = 0;
    const out = await createFlow({ name: 'spent', initialState: {} })
      .start(
        'charge',
        () => {
          calls += 1;
          throw unavailable();
        },
        { retries: 2, retryDelayMs: 0 },
      )
      .listen('ship', 'charge', () => 'never')
      .kickoff();
    expect(calls).toBe(3);
    expect(out.status).toBe('failed');
    expect(out.errors.charge).toMatch(/try later/);
    expect(out.trail).toEqual([]);
  });

  it('does not retry what a retry cannot mend: a non-retryable error, a 4xx, an invalid state', async () => {
    const attempts: Record<string, number> = {};
    const failing = (name: string, error: () => unknown) => () => {
      attempts[name] = (attempts[name] ?? 0) + 1;
      throw error();
    };
    const flow = createFlow({ name: 'final', state: z.object({ n: z.number() }) })
      .start(
        'coded',
        failing('coded', () => new StatecrewError('output_invalid', 'bad', { retryable: false })),
        { retries: 3, retryDelayMs: 0 },
      )
      .start(
        'http',
        failing('http', () => Object.assign(new Error('bad request'), { status: 400 })),
        {
          retries: 3,
          retryDelayMs: 0,
        },
      )
      .start(
        'schema',
        ({ state }) => {
          attempts.schema = (attempts.schema ?? 0) + 1;
          (state as { n: unknown }).n = 'not a number';
        },
        { retries: 3, retryDelayMs: 0 },
      );
    const out = await flow.kickoff({ inputs: { n: 1 } });
    expect(out.status).toBe('failed');
    expect(attempts).toEqual({ coded: 1, http: 1, schema: 1 });
    expect(out.state.n).toBe(1); // the refused attempt's change did not land
  });

  it('gives every attempt its own copy of the state: a failed attempt leaves nothing half done', async () => {
    let calls = 0;
    let release = (): void => {};
    const sibling = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: unknown[] = [];
    const out = await createFlow({ name: 'draft', initialState: { count: 0, log: [] as string[], other: 0 } })
      .start(
        'flaky',
        async ({ state }) => {
          calls += 1;
          seen.push(structuredClone(state));
          state.count += 1;
          state.log.push(`attempt ${calls}`);
          if (calls === 1) {
            await sibling; // the sibling completes while this attempt is in flight
            throw unavailable();
          }
          return 'done';
        },
        { retries: 1, retryDelayMs: 0 },
      )
      .start('sibling', ({ state }) => {
        state.other = 7;
        release();
      })
      .kickoff();
    expect(out.status).toBe('completed');
    expect(seen[0]).toEqual({ id: out.state.id, count: 0, log: [], other: 0 });
    // The retry starts from the state as it is then: the sibling's change, none of the failed attempt's.
    expect(seen[1]).toEqual({ id: out.state.id, count: 0, log: [], other: 7 });
    expect(out.state).toMatchObject({ count: 1, log: ['attempt 2'], other: 7 });
  });

  it('aborts an attempt at its time limit on the run clock (step_timeout), then retries it', async () => {
    const clock = createManualClock(0);
    const signals: AbortSignal[] = [];
    const flow = createFlow({ name: 'slow', initialState: {} }).start(
      'call',
      ({ signal }) => {
        signals.push(signal);
        return signals.length === 1 ? new Promise(() => {}) : 'fast';
      },
      { retries: 1, retryDelayMs: 0, timeoutMs: 5_000 },
    );
    const events: StatecrewEvent[] = [];
    const run = flow.run({ clock });
    run.events$.subscribe((event) => events.push(event));
    await clock.whenTimer();
    clock.advance(4_999);
    expect(signals[0]?.aborted).toBe(false);
    clock.advance(1);
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.output).toBe('fast');
    expect(signals[0]?.reason).toMatchObject({
      code: 'step_timeout',
      details: { step: 'call', timeoutMs: 5_000 },
    });
    expect(events.find((e) => e.type === 'node.failed')).toMatchObject({
      code: 'step_timeout',
      willRetry: true,
    });
  });

  it('fails the run with step_timeout when the last attempt runs out of time', async () => {
    const clock = createManualClock(0);
    const run = createFlow({ name: 'stuck', initialState: {} })
      .start('call', () => new Promise(() => {}), { timeoutMs: 100 })
      .run({ clock });
    await clock.whenTimer();
    clock.advance(100);
    const out = await run.result;
    expect(out.status).toBe('failed');
    expect(out.failures.call).toMatchObject({ code: 'step_timeout', retryable: true });
  });

  it('keeps a retried step to one commit with a store', async () => {
    let calls = 0;
    const store = new MemoryStore();
    const out = await createFlow({ name: 'stored', initialState: { n: 0 }, store })
      .start(
        'once',
        ({ state }) => {
          calls += 1;
          state.n += 1;
          if (calls === 1) throw unavailable();
        },
        { retries: 1, retryDelayMs: 0 },
      )
      .kickoff({ inputs: { id: 'r1' } });
    expect(out.status).toBe('completed');
    const info = await createFlow({ name: 'stored', initialState: { n: 0 }, store })
      .start('once', () => undefined)
      .getRun('r1');
    expect(info?.state).toMatchObject({ n: 1 });
  });

  it('refuses bad step options with invalid_option, naming the step and the option', () => {
    const flow = () => createFlow({ name: 'opts', initialState: {} });
    const step = () => 'x';
    expect(() => flow().start('a', step, { retries: -1 })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        details: expect.objectContaining({ option: 'retries' }),
      }),
    );
    expect(() => flow().start('a', step, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => flow().start('a', step, { retryDelayMs: 1.5 })).toThrow(/retryDelayMs/);
    expect(() => flow().start('a', step, { retry: 2 } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        details: expect.objectContaining({
          option: 'retry',
          expected: 'one of retries, retryDelayMs, timeoutMs',
        }),
      }),
    );
    expect(() => flow().start('a', step, { maxRuns: 2 } as never)).toThrow(/maxRuns/);
    expect(() => flow().start('a', step).listen('b', 'a', step, { maxRuns: 0 })).toThrow(/maxRuns/);
  });
});
