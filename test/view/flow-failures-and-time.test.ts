import { describe, expect, it } from 'vitest';
import {
  createFlow,
  type FlowRun,
  failed,
  MemoryStore,
  type StatecrewEvent,
  type Store,
} from '../../src/index.js';
import { loadSnapshot } from '../../src/runtime/flow/flow-store.js';
import { createManualClock, type ManualClock } from '../../src/testing.js';
import { type RunView, renderRunView, toFlowView } from '../../src/view/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A payment flow: it waits three days for the payment, reminds when it is late, and cools off an hour. */
function paymentFlow(store: Store, clock: ManualClock) {
  return createFlow({ name: 'payment', initialState: {}, store, clock })
    .start('invoice', () => 'invoice sent')
    .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 3 * DAY, onTimeout: 'late' })
    .listen('remind', 'late', () => 'reminded')
    .sleep('cool_off', 'payment', { ms: HOUR })
    .listen('thank', 'cool_off', () => 'thanks');
}

/** An order flow whose charge may fail: a `failed(charge)` handler refunds. */
function orderFlow(charge: () => unknown) {
  return createFlow({ name: 'order', initialState: {} })
    .start('charge', charge, { retries: 2, retryDelayMs: 0 })
    .listen('refund', failed('charge'), () => 'refunded')
    .listen('ship', 'charge', () => 'shipped');
}

/** The events of a run, as they go by. */
function collect(run: Pick<FlowRun<unknown>, 'events$'>): StatecrewEvent[] {
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return events;
}

const node = (view: RunView, id: string) => {
  const found = view.nodes.find((n) => n.id === id);
  if (found === undefined) throw new Error(`no node ${id}`);
  return found;
};
const edges = (view: RunView) =>
  view.edges.map(
    (e) => `${e.from}-${e.label ?? ''}->${e.to}${e.kind ? ` (${e.kind})` : ''}${e.taken ? ' *' : ''}`,
  );
const iso = (ms: number) => new Date(ms).toISOString();

describe('the flow view of failures, waits and sleeps', () => {
  it('draws wait and sleep steps as their own kinds, a failure edge and timeout edges, with their settings', () => {
    const clock = createManualClock();
    const view = toFlowView(paymentFlow(new MemoryStore(), clock));
    expect(view.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['invoice', 'step'],
      ['payment', 'wait'],
      ['remind', 'step'],
      ['cool_off', 'sleep'],
      ['thank', 'step'],
    ]);
    expect(node(view, 'payment').wait).toEqual({
      event: 'payment.received',
      deadlineMs: 3 * DAY,
      onTimeout: 'late',
    });
    expect(node(view, 'cool_off').sleep).toEqual({ ms: HOUR });
    expect(edges(view)).toEqual([
      'invoice-->payment',
      'payment-late->remind (timeout)',
      'payment-->cool_off',
      'cool_off-->thank',
    ]);

    const human = createFlow({ name: 'approve', initialState: {}, store: new MemoryStore() })
      .start('request', () => 'refund 40')
      .human('approval', 'request', { routes: ['yes', 'no'], timeoutMs: HOUR, onTimeout: 'expired' })
      .listen('drop', 'expired', () => 'dropped')
      .listen('pay', 'yes', () => 'paid');
    const humanView = toFlowView(human);
    expect(node(humanView, 'approval').human).toEqual({
      routes: ['yes', 'no'],
      deadlineMs: HOUR,
      onTimeout: 'expired',
    });
    expect(edges(humanView)).toContain('approval-expired->drop (timeout)');
    expect(edges(humanView)).toContain('approval-yes->pay');

    const order = toFlowView(orderFlow(() => 'paid'));
    expect(edges(order)).toEqual(['charge-failed->refund (failure)', 'charge-->ship']);
    expect(node(order, 'charge').notes).toContain('On failure: refund');
  });

  it('shows a handled failure as failed and handled, with its retries, the failure edge taken and the run completed', async () => {
    const run = orderFlow(() => {
      throw Object.assign(new Error('card network down'), { status: 503 });
    }).run();
    const events = collect(run);
    const output = await run.result;
    const view = toFlowView(
      orderFlow(() => 'unused'),
      { output, events },
    );
    expect(view.status).toBe('completed');
    expect(node(view, 'charge')).toMatchObject({
      status: 'failed',
      handled: true,
      error: 'card network down',
      attempts: 3,
      retries: 2,
    });
    expect(node(view, 'refund').status).toBe('completed');
    expect(node(view, 'ship').status).toBe('not-run');
    expect(edges(view)).toEqual(['charge-failed->refund (failure) *', 'charge-->ship']);

    const html = renderRunView(view);
    expect(html).toContain('class="node status-failed kind-step handled" data-node="charge"');
    expect(html).toContain('aria-label="charge — failed, handled"');
    expect(html).toContain('>step · failure handled</text>');
    expect(html).toContain('<span class="swatch status-failed handled"></span>failed, handled</li>');
    expect(html).toMatch(
      /<g class="edge taken failure" data-from="charge" data-to="refund"><path [^>]*url\(#arrow-failure\)/,
    );

    // The stored run keeps the failure handled; an unhandled failure is not marked.
    const store = new MemoryStore();
    const stored = orderFlow(() => {
      throw new Error('declined');
    });
    await stored.kickoff({ store, inputs: { id: 'o-1' } });
    const snapshot = await loadSnapshot(store, 'o-1');
    const fromStore = toFlowView(stored, snapshot);
    expect(node(fromStore, 'charge')).toMatchObject({ status: 'failed', handled: true });
    expect(edges(fromStore)[0]).toBe('charge-failed->refund (failure) *');
    const plain = await createFlow({ name: 'plain', initialState: {} })
      .start('charge', () => {
        throw new Error('declined');
      })
      .kickoff();
    expect(plain.failures.charge?.handled).toBeUndefined();
    const plainView = toFlowView(
      orderFlow(() => 'unused'),
      { output: plain },
    );
    expect(node(plainView, 'charge').handled).toBeUndefined();
    expect(renderRunView(plainView)).not.toContain('failed, handled');
  });

  it('shows a run paused at a wait step like a waiting human step: the event, its deadline and the wait', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    const run = flow.run({ inputs: { id: 'p-1' } });
    const events = collect(run);
    const output = await run.result;
    const timeoutAt = clock.now() + 3 * DAY;
    const view = toFlowView(flow, { output, events });
    expect(view.status).toBe('paused');
    expect(node(view, 'payment')).toMatchObject({
      status: 'paused',
      wait: { event: 'payment.received', timeoutAt, waitingSince: clock.now(), onTimeout: 'late' },
    });
    expect(view.timeline.map((e) => [e.node, e.kind, e.waitingFor, e.label])).toEqual([
      ['invoice', 'run', undefined, 'invoice'],
      ['payment', 'wait', 'event', 'payment (event)'],
    ]);
    const html = renderRunView(view);
    expect(html).toContain(
      `aria-label="payment — paused · waits for event payment.received · times out at ${iso(timeoutAt)}"`,
    );
    expect(html).toContain('>◷ wait · payment.received</text>');
    expect(html).toContain('payment (event): waited for an event');

    // From the events alone (no result yet), and from the stored run, it shows the same.
    expect(node(toFlowView(flow, { events }), 'payment')).toMatchObject({
      status: 'paused',
      wait: { timeoutAt },
    });
    for (const stored of [await loadSnapshot(store, 'p-1'), await flow.getRun('p-1')]) {
      expect(node(toFlowView(flow, stored), 'payment')).toMatchObject({
        status: 'paused',
        wait: { event: 'payment.received', timeoutAt },
      });
    }
  });

  it('shows a signaled wait with how long it waited, and a sleep with its wake time, live and stored', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    const first = flow.run({ inputs: { id: 'p-2' } });
    const events = collect(first);
    await first.result;
    clock.advance(HOUR);
    const signaled = flow.signal(
      'p-2',
      'payment.received',
      { amount: 42 },
      {
        onRun: (r) => r.events$.subscribe((e) => events.push(e)),
      },
    );
    while (!events.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
    const wakeAt = clock.now() + HOUR;

    const sleeping = toFlowView(flow, { events });
    expect(node(sleeping, 'payment')).toMatchObject({ status: 'completed', wait: { waitedMs: HOUR } });
    expect(node(sleeping, 'payment').wait?.timedOut).toBeUndefined();
    expect(node(sleeping, 'cool_off')).toMatchObject({ status: 'running', sleep: { ms: HOUR, wakeAt } });
    const html = renderRunView(sleeping);
    expect(html).toContain(`aria-label="cool_off — running · wakes at ${iso(wakeAt)}"`);
    expect(html).toContain(`>☾ sleep · until ${iso(wakeAt).slice(0, 16).replace('T', ' ')}Z</text>`);
    const stored = toFlowView(flow, await loadSnapshot(store, 'p-2'));
    expect(stored.status).toBe('running');
    expect(node(stored, 'cool_off')).toMatchObject({ status: 'running', sleep: { wakeAt } });
    expect(node(stored, 'thank').status).toBe('waiting');

    clock.advance(HOUR);
    const out = await signaled;
    expect(out.status).toBe('completed');
    const done = toFlowView(flow, { output: out, events });
    expect(node(done, 'cool_off')).toMatchObject({ status: 'completed', sleep: { wakeAt } });
    expect(node(done, 'payment').structured).toEqual({ amount: 42 });
    expect(edges(done).filter((e) => e.endsWith('*'))).toEqual([
      'invoice-->payment *',
      'payment-->cool_off *',
      'cool_off-->thank *',
    ]);
  });

  it('shows a wait that timed out, along its timeout edge', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    await flow.kickoff({ inputs: { id: 'p-3' } });
    clock.advance(3 * DAY);
    const events: StatecrewEvent[] = [];
    const output = await flow.resume('p-3', undefined, {
      onRun: (r) => r.events$.subscribe((e) => events.push(e)),
    });
    const view = toFlowView(flow, { output, events });
    expect(view.status).toBe('completed');
    expect(node(view, 'payment').wait?.timedOut).toBe(true);
    expect(node(view, 'remind').status).toBe('completed');
    expect(edges(view)).toContain('payment-late->remind (timeout) *');
    expect(edges(view)).toContain('payment-->cool_off');
    expect(node(toFlowView(flow, await loadSnapshot(store, 'p-3')), 'payment').wait?.timedOut).toBe(true);
  });
});
