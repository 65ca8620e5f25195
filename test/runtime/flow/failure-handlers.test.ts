import { describe, expect, it } from 'vitest';
import { and, createFlow, failed, MemoryStore, or, type StatecrewEvent } from '../../../src/index.js';
import { forEachPath } from '../../../src/testing.js';

/** An error a retry may mend, like a provider's 503. */
const unavailable = () => Object.assign(new Error('card network down'), { status: 503, code: 'network' });

function orderFlow(charge: () => unknown) {
  return createFlow({ name: 'order', initialState: { log: [] as string[] } })
    .start('charge', charge, { retries: 2, retryDelayMs: 0 })
    .listen('refund', failed('charge'), ({ state, payload }) => {
      state.log.push('refund');
      return payload;
    })
    .listen('notify', 'refund', () => 'customer told')
    .listen('ship', 'charge', ({ state }) => {
      state.log.push('ship');
      return 'shipped';
    });
}

describe('error-handler steps: failed(step)', () => {
  it('runs the handler once the retries are spent; the run completes with the failure handled', async () => {
    let calls = 0;
    const flow = orderFlow(() => {
      calls += 1;
      throw unavailable();
    });
    const events: StatecrewEvent[] = [];
    const run = flow.run();
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(calls).toBe(3);
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['refund', 'notify']);
    expect(out.outputs.refund).toEqual({
      step: 'charge',
      error: { message: 'card network down', code: 'network', retryable: true },
    });
    expect(out.failures.charge).toMatchObject({ message: 'card network down', handled: true });
    expect(out.emitted).toEqual(['failed(charge)', 'refund', 'notify']);
    expect(out.state.log).toEqual(['refund']);
    const failedStep = events.find((e) => e.type === 'flow.step' && e.status === 'failed');
    expect(failedStep).toMatchObject({ name: 'charge', handled: true });
  });

  it('leaves the handler alone when the step succeeds after a retry', async () => {
    let calls = 0;
    const out = await orderFlow(() => {
      calls += 1;
      if (calls === 1) throw unavailable();
      return 'paid';
    }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['charge', 'ship']);
    expect(out.failures).toEqual({});
  });

  it('fails the run as before when no trigger handles the failure', async () => {
    const flow = createFlow({ name: 'plain', initialState: {} })
      .start('charge', () => {
        throw new Error('declined');
      })
      .listen('ship', 'charge', () => 'shipped');
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.charge).toMatchObject({ message: 'declined' });
    expect(out.failures.charge?.handled).toBeUndefined();
    expect(out.trail).toEqual([]);
  });

  it('fails the run when one failure is handled and another is not', async () => {
    const flow = createFlow({ name: 'half', initialState: {} })
      .start('a', () => {
        throw new Error('a broke');
      })
      .start('b', () => {
        throw new Error('b broke');
      })
      .listen('mend', failed('a'), () => 'mended');
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.a?.handled).toBe(true);
    expect(out.failures.b?.handled).toBeUndefined();
    expect(out.trail).toEqual([]);
  });

  it('composes with or(): one handler for either failure', async () => {
    const flow = createFlow({ name: 'either', initialState: {} })
      .start('a', () => 'fine')
      .start('b', () => {
        throw new Error('b broke');
      })
      .listen('mend', or(failed('a'), failed('b')), ({ payload }) => (payload as { step: string }).step);
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    expect(out.outputs.mend).toBe('b');
    expect(out.trail).toEqual(['a', 'mend']);
  });

  it('keeps a handled failure through a store: getRun and a resumed completed run show it', async () => {
    const store = new MemoryStore();
    const flow = orderFlow(() => {
      throw unavailable();
    });
    const out = await flow.kickoff({ store, inputs: { id: 'o-1' } });
    expect(out.status).toBe('completed');
    const again = await flow.resume('o-1', undefined, { store });
    expect(again.status).toBe('completed');
    expect(again.failures.charge?.handled).toBe(true);
    expect(await flow.getRun('o-1', { store })).toMatchObject({
      status: 'completed',
      trail: ['refund', 'notify'],
    });
  });

  it('is a router with outcomes "charge" and "failed" for analysis, and forcing "failed" skips the step', async () => {
    let calls = 0;
    const flow = orderFlow(() => {
      calls += 1;
      return 'paid';
    });
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths).toEqual([
      { routes: { charge: 'charge' }, trail: ['charge', 'ship'], outcome: 'completed' },
      { routes: { charge: 'failed' }, trail: ['refund', 'notify'], outcome: 'completed' },
    ]);
    expect(analysis.unreachableSteps).toEqual([]);
    const forced = await flow.kickoff({ routes: { charge: 'failed' } });
    expect(calls).toBe(0);
    expect(forced.trail).toEqual(['refund', 'notify']);
    expect(forced.failures.charge).toMatchObject({ code: 'forced_failure', handled: true });
    const runs = await forEachPath(flow, (path, output) => {
      expect(output.status).toBe('completed');
      expect(output.trail).toEqual(path.trail);
    });
    expect(runs).toHaveLength(2);
    expect(calls).toBe(1);
  });

  it('finds the dead ends of failure branches: an and() that waits for a step the failure skipped', () => {
    const flow = orderFlow(() => 'paid').listen('report', or('ship', 'notify'), () => 'reported');
    const gated = orderFlow(() => 'paid').listen('report', and('ship', 'notify'), () => 'reported');
    expect(flow.analyze().deadEnds).toEqual([]);
    const deadEnds = gated.analyze().deadEnds;
    expect(deadEnds).toEqual([
      { step: 'report', missing: ['notify'], trail: ['charge', 'ship'] },
      { step: 'report', missing: ['ship'], trail: ['refund', 'notify'] },
    ]);
    expect(gated.analyze().unreachableSteps).toEqual(['report']);
  });
});
