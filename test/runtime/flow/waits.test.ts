import { describe, expect, it } from 'vitest';
import {
  createFlow,
  createRunner,
  failed,
  MemoryStore,
  or,
  type StatecrewEvent,
} from '../../../src/index.js';
import { createManualClock, forEachPath } from '../../../src/testing.js';

const HOUR = 3_600_000;

function paymentFlow(store: MemoryStore, clock = createManualClock()) {
  return createFlow({ name: 'payment', initialState: { notes: [] as string[] }, store, clock })
    .start('invoice', () => 'invoice sent')
    .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 3 * 24 * HOUR, onTimeout: 'late' })
    .listen('thank', 'payment', ({ payload, state }) => {
      state.notes.push('thanked');
      return `thanks for ${(payload as { amount: number }).amount}`;
    })
    .listen('remind', 'late', ({ payload }) => ({ reminded: payload }));
}

describe('wait steps', () => {
  it('pause the run with the event they wait for and their deadline, until a signal completes them', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    const events: StatecrewEvent[] = [];
    const run = flow.run({ inputs: { id: 'p-1' } });
    run.events$.subscribe((e) => events.push(e));
    const paused = await run.result;
    expect(paused.status).toBe('paused');
    expect(paused.pending).toEqual({
      kind: 'event',
      step: 'payment',
      nodeId: 'payment',
      event: 'payment.received',
      payload: 'invoice sent',
      timeoutAt: clock.now() + 3 * 24 * HOUR,
    });
    expect(events.find((e) => e.type === 'flow.paused')).toMatchObject({ waiting: ['payment'] });
    expect(await flow.getRun('p-1')).toMatchObject({
      status: 'paused',
      pending: { event: 'payment.received' },
    });
    const other = paymentFlow(store, clock); // another definition object of the same flow
    const out = await other.signal('p-1', 'payment.received', { amount: 42 });
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['invoice', 'payment', 'thank']);
    expect(out.outputs.payment).toEqual({ amount: 42 });
    expect(out.output).toBe('thanks for 42');
    expect(out.emitted).toEqual(['invoice', 'payment', 'thank']);
  });

  it('refuse a signal nothing waits for (no_waiter) and leave the run as it was', async () => {
    const store = new MemoryStore();
    const flow = paymentFlow(store);
    await flow.kickoff({ inputs: { id: 'p-2' } });
    await expect(flow.signal('p-2', 'payment.refunded', {})).rejects.toMatchObject({
      code: 'no_waiter',
      message: expect.stringContaining('"payment.received"'),
    });
    expect((await flow.getRun('p-2'))?.status).toBe('paused');
    await expect(flow.resume('p-2', { route: 'late' })).rejects.toMatchObject({ code: 'answer_required' });
    await flow.signal('p-2', 'payment.received', { amount: 1 });
    await expect(flow.signal('p-2', 'payment.received', {})).rejects.toMatchObject({ code: 'no_waiter' });
    await expect(flow.signal('nope', 'payment.received', {})).rejects.toMatchObject({
      code: 'run_not_found',
    });
  });

  it('time out through a runner on its clock: the step emits its onTimeout label instead', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    await flow.kickoff({ inputs: { id: 'p-3' } });
    // It polls less often than the test moves the clock: only its explicit passes run.
    const runner = createRunner({ store, flows: [flow], clock, pollMs: 30 * 24 * HOUR });
    const early = await runner.recover();
    expect(early.timedOut).toEqual([]);
    await expect(flow.resume('p-3')).rejects.toMatchObject({ code: 'answer_required' });
    clock.advance(3 * 24 * HOUR);
    const events: StatecrewEvent[] = [];
    runner.events$.subscribe((e) => events.push(e));
    const report = await runner.recover();
    await runner.close();
    expect(report.timedOut).toEqual(['p-3']);
    expect(events.map((e) => e.type)).toContain('run.deadline');
    expect(events.find((e) => e.type === 'flow.timed_out')).toMatchObject({ step: 'payment' });
    const out = await flow.resume('p-3');
    expect(out.status).toBe('completed');
    expect(out.trail).toEqual(['invoice', 'payment', 'remind']);
    expect(out.emitted).toEqual(['invoice', 'late', 'remind']);
    expect(out.outputs.remind).toEqual({ reminded: { timedOut: true } });
    await expect(flow.signal('p-3', 'payment.received', {})).rejects.toMatchObject({ code: 'no_waiter' });
  });

  it('time out through a runner whose own poll came first: recover() reports the run it goes on with, and it ends', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = createFlow({ name: 'invoice', initialState: {}, store, clock })
      .start('invoice', () => 'sent')
      .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 3 * 24 * HOUR, onTimeout: 'late' })
      .listen('chase', 'late', () => {
        ran.push('chase');
        return 'chased';
      });
    await flow.kickoff({ inputs: { id: 'i-1' } });
    // Polling every minute: moving the clock three days fires the runner's poll, whose pass takes the run.
    const runner = createRunner({ store, flows: [flow], clock, pollMs: 60_000 });
    clock.advance(3 * 24 * HOUR + 1);
    const report = await runner.recover();
    await runner.close();
    expect(report).toMatchObject({ timedOut: ['i-1'], skipped: [], failed: [] });
    expect((await flow.getRun('i-1'))?.status).toBe('completed');
    expect(ran).toEqual(['chase']);
  });

  it('fail with step_timeout when timed out without an onTimeout label, which failed(step) can handle', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = createFlow({ name: 'strict', initialState: {}, store, clock })
      .start('ask', () => 'asked')
      .wait('reply', 'ask', { event: 'reply', timeoutMs: 1000 })
      .listen('escalate', failed('reply'), ({ payload }) => payload);
    await flow.kickoff({ inputs: { id: 's-1' } });
    clock.advance(1000);
    const out = await flow.resume('s-1');
    expect(out.status).toBe('completed');
    expect(out.failures.reply).toMatchObject({ code: 'step_timeout', handled: true });
    expect(out.outputs.escalate).toMatchObject({ step: 'reply', error: { code: 'step_timeout' } });
  });

  it('time out human steps the same way: timeoutMs and onTimeout', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = createFlow({ name: 'approve', initialState: {}, store, clock })
      .start('request', () => 'refund 40')
      .human('approval', 'request', { routes: ['yes', 'no'], timeoutMs: HOUR, onTimeout: 'expired' })
      .listen('pay', 'yes', () => 'paid')
      .listen('drop', 'expired', ({ payload }) => payload);
    const paused = await flow.kickoff({ inputs: { id: 'h-1' } });
    expect(paused.pending).toMatchObject({
      kind: 'human',
      routes: ['yes', 'no'],
      timeoutAt: clock.now() + HOUR,
    });
    clock.advance(HOUR - 1);
    await expect(flow.resume('h-1')).rejects.toMatchObject({ code: 'answer_required' });
    clock.advance(1);
    const out = await flow.resume('h-1');
    expect(out.trail).toEqual(['request', 'approval', 'drop']);
    expect(out.outputs.drop).toEqual({ route: 'expired', feedback: undefined, timedOut: true });
    expect(flow.paths().map((p) => p.routes.approval)).toEqual(['yes', 'no', 'expired']);
  });

  it('keep their deadline when another waiting step is answered first', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = createFlow({ name: 'two', initialState: {}, store, clock })
      .start('open', () => 'opened')
      .wait('a', 'open', { event: 'a', timeoutMs: 1000, onTimeout: 'a_late' })
      .wait('b', 'open', { event: 'b', timeoutMs: 5000, onTimeout: 'b_late' })
      .listen('done_a', 'a', () => 'a done');
    const paused = await flow.kickoff({ inputs: { id: 't-1' } });
    expect(paused.waiting?.map((w) => w.step)).toEqual(['a', 'b']);
    clock.advance(500);
    const half = await flow.signal('t-1', 'a', 'A');
    expect(half.status).toBe('paused');
    expect(half.pending).toMatchObject({ step: 'b', timeoutAt: paused.waiting?.[1]?.timeoutAt });
    clock.advance(4500);
    const out = await flow.resume('t-1');
    expect(out.status).toBe('completed');
    expect(out.emitted).toEqual(['open', 'a', 'b_late', 'done_a']);
  });

  it('are routers with two outcomes for analysis: paths and forEachPath cover the timeout branch', async () => {
    const flow = paymentFlow(new MemoryStore());
    const analysis = flow.analyze();
    expect(analysis.terminates).toBe(true);
    expect(analysis.paths).toEqual([
      { routes: { payment: 'payment' }, trail: ['invoice', 'payment', 'thank'], outcome: 'completed' },
      { routes: { payment: 'late' }, trail: ['invoice', 'payment', 'remind'], outcome: 'completed' },
    ]);
    expect(analysis.unusedRoutes).toEqual([]);
    const noStore = createFlow({ name: 'payment', initialState: { notes: [] as string[] } })
      .start('invoice', () => 'invoice sent')
      .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 1000, onTimeout: 'late' })
      .listen('thank', 'payment', () => 'thanks')
      .listen('remind', 'late', () => 'reminded');
    const runs = await forEachPath(noStore, (path, out) => {
      expect(out.status).toBe('completed');
      expect(out.trail).toEqual(path.trail);
    });
    expect(runs.map((r) => r.output.output)).toEqual(['thanks', 'reminded']);
    await expect(noStore.kickoff()).rejects.toMatchObject({ code: 'store_required' });
  });

  it('are drawn: waits as hexagons with their timeout label, sleeps, and failure edges', () => {
    const flow = createFlow({ name: 'saga', initialState: {} })
      .start('charge', () => 'paid')
      .listen('refund', failed('charge'), () => 'refunded')
      .wait('delivery', 'charge', { event: 'delivered', timeoutMs: 10, onTimeout: 'lost' })
      .sleep('cool_off', 'delivery', { ms: 10 })
      .listen('close', or('cool_off', 'lost'), () => 'closed');
    expect(flow.toMermaid()).toBe(
      [
        'flowchart TD',
        '  s0["charge"]',
        '  s1["refund"]',
        '  s2{{"delivery"}}',
        '  s3[/"cool_off"/]',
        '  s4["close"]',
        '  s0 -. "failed" .-> s1',
        '  s0 --> s2',
        '  s2 --> s3',
        '  g1((or))',
        '  g1 --> s4',
        '  s3 --> g1',
        '  s2 -- "lost" --> g1',
      ].join('\n'),
    );
    const machine = flow.toMachine();
    const events = Object.values(machine.states).flatMap((state) => Object.keys(state.on ?? {}));
    expect(events).toEqual(
      expect.arrayContaining(['charge=charge', 'charge=failed', 'delivery=delivery', 'delivery=lost']),
    );
  });

  it('without a deadline are still forced in model-based tests, which need no store then', async () => {
    const flow = createFlow({ name: 'plain', initialState: {} })
      .start('ask', () => 'asked')
      .wait('reply', 'ask', { event: 'reply' })
      .listen('done', 'reply', () => 'done');
    expect(flow.paths()).toEqual([
      { routes: { reply: 'reply' }, trail: ['ask', 'reply', 'done'], outcome: 'completed' },
    ]);
    const runs = await forEachPath(flow, (path, out) => expect(out.trail).toEqual(path.trail));
    expect(runs).toHaveLength(1);
  });

  it('refuse wrong options when the flow is built, naming the step', () => {
    const flow = createFlow({ name: 'bad', initialState: {} }).start('a', () => 1);
    expect(() => flow.wait('w', 'a', { event: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    expect(() => flow.wait('w', 'a', { event: 'e', onTimeout: 'late' })).toThrow(/onTimeout/);
    expect(() => flow.wait('w', 'a', { event: 'e', timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => flow.wait('w', 'a', { event: 'e', timout: 5 } as never)).toThrow(/timout/);
    expect(() => flow.wait('w', 'a', { event: 'e', timeoutMs: 5, onTimeout: 'a' })).toThrow(
      expect.objectContaining({ code: 'name_clash' }),
    );
  });
});

describe('sleep steps', () => {
  it('sleep on the run clock, then pass on the payload they were triggered with', async () => {
    const clock = createManualClock();
    const flow = createFlow({ name: 'nap', initialState: {}, clock })
      .start('order', () => 'o-1')
      .sleep('cool_off', 'order', { ms: HOUR })
      .listen('close', 'cool_off', ({ payload }) => `closed ${String(payload)}`);
    const events: StatecrewEvent[] = [];
    const run = flow.run();
    run.events$.subscribe((e) => events.push(e));
    let settled = false;
    void run.result.then(() => {
      settled = true;
    });
    while (!events.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
    expect(events.find((e) => e.type === 'flow.sleeping')).toMatchObject({
      step: 'cool_off',
      wakeAt: clock.now() + HOUR,
    });
    clock.advance(HOUR - 1);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.advance(1);
    const out = await run.result;
    expect(out.output).toBe('closed o-1');
    expect(out.trail).toEqual(['order', 'cool_off', 'close']);
  });

  it('sleep until a time the run computes, and not at all when it has passed', async () => {
    const clock = createManualClock();
    const past = createFlow({ name: 'late', initialState: { due: clock.now() - 1 }, clock })
      .start('a', () => 'x')
      .sleep('wait', 'a', { until: ({ state }) => new Date(state.due) })
      .listen('b', 'wait', () => 'woke');
    expect((await past.kickoff()).output).toBe('woke');
    const bad = createFlow({ name: 'bad', initialState: {}, clock })
      .start('a', () => 'x')
      .sleep('wait', 'a', { until: () => Number.NaN });
    const out = await bad.kickoff();
    expect(out.failures.wait).toMatchObject({ code: 'invalid_option' });
    expect(() => bad.sleep('s', 'a', { ms: -1 })).toThrow(/ms/);
    expect(() => bad.sleep('s', 'a', {} as never)).toThrow(/exactly one/);
  });

  it('keep the stored wake time when the run is aborted and resumed before it', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = createFlow({ name: 'nap', initialState: {}, store, clock })
      .start('order', () => 'o-1')
      .sleep('cool_off', 'order', { ms: HOUR })
      .listen('close', 'cool_off', () => 'closed');
    const abort = new AbortController();
    const run = flow.run({ inputs: { id: 'n-1' }, signal: abort.signal });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    while (!events.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
    const wakeAt = clock.now() + HOUR;
    clock.advance(HOUR / 2);
    abort.abort();
    await expect(run.result).rejects.toMatchObject({ code: 'aborted' });
    const resumed: StatecrewEvent[] = [];
    const result = flow.resume('n-1', undefined, {
      onRun: (r) => r.events$.subscribe((e) => resumed.push(e)),
    });
    while (!resumed.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
    expect(resumed.find((e) => e.type === 'flow.sleeping')).toMatchObject({ wakeAt });
    clock.advance(HOUR / 2);
    expect((await result).trail).toEqual(['order', 'cool_off', 'close']);
  });
});
