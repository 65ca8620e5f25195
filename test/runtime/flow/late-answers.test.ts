import { describe, expect, it } from 'vitest';
import { createFlow, createRunner, MemoryStore } from '../../../src/index.js';
import { createManualClock } from '../../../src/testing.js';

const HOUR = 3_600_000;

/** invoice → payment (waits an hour for `payment.received`, else `late`) → thank | remind; each run logged. */
function paymentFlow(store: MemoryStore, clock: ReturnType<typeof createManualClock>, ran: string[]) {
  return createFlow({ name: 'payment', initialState: {}, store, clock })
    .start('invoice', () => 'sent')
    .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: HOUR, onTimeout: 'late' })
    .listen('thank', 'payment', () => {
      ran.push('thank');
      return 'thanked';
    })
    .listen('remind', 'late', () => {
      ran.push('remind');
      return 'reminded';
    });
}

describe('deadlines at the door', () => {
  it('refuse a signal that comes after the wait’s deadline, before any runner timed it out', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = paymentFlow(store, clock, ran);
    const paused = await flow.kickoff({ inputs: { id: 'p-1' } });
    const timeoutAt = paused.pending?.timeoutAt as number;
    clock.advance(HOUR); // the deadline itself: the wait takes nothing from now on
    await expect(flow.signal('p-1', 'payment.received', { amount: 9 })).rejects.toMatchObject({
      code: 'deadline_passed',
      details: { flow: 'payment', id: 'p-1', step: 'payment', timeoutAt, at: clock.now() },
    });
    expect(ran).toEqual([]);
    expect(await flow.getRun('p-1')).toMatchObject({ status: 'paused', pending: { step: 'payment' } });
    // The runner's next pass takes the run down its timeout path.
    const runner = createRunner({ store, flows: [flow], clock, pollMs: 30 * 24 * HOUR });
    const report = await runner.recover();
    await runner.close();
    expect(report.timedOut).toEqual(['p-1']);
    const out = await flow.resume('p-1');
    expect(out).toMatchObject({ status: 'completed', trail: ['invoice', 'payment', 'remind'] });
    expect(ran).toEqual(['remind']);
  });

  it('take a signal that comes a moment before the deadline', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = paymentFlow(store, clock, ran);
    await flow.kickoff({ inputs: { id: 'p-2' } });
    clock.advance(HOUR - 1);
    const out = await flow.signal('p-2', 'payment.received', { amount: 9 });
    expect(out).toMatchObject({ status: 'completed', trail: ['invoice', 'payment', 'thank'] });
    expect(ran).toEqual(['thank']);
  });

  it('give a signal to the steps still before their deadline, leaving the late one to time out', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = createFlow({ name: 'parcel', initialState: {}, store, clock })
      .start('ship', () => 'shipped')
      .wait('courier', 'ship', { event: 'delivered', timeoutMs: HOUR, onTimeout: 'courier_late' })
      .wait('customer', 'ship', { event: 'delivered' })
      .listen('pay_courier', 'courier', () => ran.push('pay_courier'))
      .listen('fine_courier', 'courier_late', () => ran.push('fine_courier'))
      .listen('thank', 'customer', () => ran.push('thank'));
    await flow.kickoff({ inputs: { id: 'd-1' } });
    clock.advance(2 * HOUR);
    const signalled = await flow.signal('d-1', 'delivered', 'at the door');
    // The customer's wait took it; the courier's, late, still waits (and the run with it).
    expect(signalled).toMatchObject({ status: 'paused', trail: ['ship', 'customer'] });
    expect(signalled.pending).toMatchObject({ step: 'courier' });
    const out = await flow.resume('d-1');
    expect(out.status).toBe('completed');
    expect(out.outputs.customer).toBe('at the door');
    expect(out.outputs.courier).toEqual({ timedOut: true });
    expect([...ran].sort()).toEqual(['fine_courier', 'thank']);
  });

  it('refuse a human’s answer that comes after the step’s deadline, leaving the step to time out', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = createFlow({ name: 'approve', initialState: {}, store, clock })
      .start('ask', () => 'asked')
      .human('decide', 'ask', { routes: ['yes', 'no'], timeoutMs: HOUR, onTimeout: 'expired' })
      .listen('ship', 'yes', () => ran.push('ship'))
      .listen('drop', 'expired', () => ran.push('drop'));
    await flow.kickoff({ inputs: { id: 'a-1' } });
    clock.advance(2 * HOUR);
    await expect(flow.resume('a-1', { route: 'yes' })).rejects.toMatchObject({
      code: 'deadline_passed',
      details: { step: 'decide' },
    });
    expect((await flow.getRun('a-1'))?.status).toBe('paused');
    const out = await flow.resume('a-1'); // no answer: the due deadline times the step out
    expect(out).toMatchObject({ status: 'completed', trail: ['ask', 'decide', 'drop'] });
    expect(ran).toEqual(['drop']);
  });
});
