import { describe, expect, it } from 'vitest';
import { isStatecrewError, MemoryStore, readHistory } from '../../src/index.js';
import { createManualClock } from '../../src/testing.js';
import {
  brokenFlow,
  clerkModel,
  parentFlow,
  paymentFlow,
  refundFlow,
  reviewFlow,
} from '../fixtures/compose/subflow-flows.js';

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isStatecrewError(error) ? error.code : String(error)),
  );

describe('a flow step', () => {
  it('fails with subflow_failed when its child fails, and failed(step) handles it', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const out = await parentFlow(brokenFlow(ran), ran, store).kickoff({ inputs: { id: 'b-1' } });
    expect(out.status).toBe('completed');
    expect(ran).toEqual(['plan', 'first', 'second', 'mend']);
    expect(out.failures.review).toMatchObject({
      code: 'subflow_failed',
      handled: true,
      details: {
        step: 'review',
        flow: 'broken',
        runId: 'b-1/review',
        failedStep: 'second',
        code: 'printer_fire',
      },
    });
    // The child run is kept, failed, in the parent's store, its head naming its parent.
    const head = await store.readRun('b-1/review');
    expect(head).toMatchObject({ kind: 'flow', name: 'broken', status: 'failed' });
    expect((head?.data as { parent?: unknown } | undefined)?.parent).toEqual({
      runId: 'b-1',
      nodeId: 'review',
      step: 'review',
    });
  });

  it('takes inputs that are a plain object only (invalid_option fails the step)', async () => {
    const ran: string[] = [];
    const child = brokenFlow(ran);
    const { createFlow } = await import('../../src/index.js');
    const flow = createFlow({ name: 'p', initialState: {} })
      .start('a', () => 1)
      .flow('sub', 'a', child, { inputs: () => [1, 2] as unknown as Record<string, unknown> });
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.failures.sub?.code).toBe('invalid_option');
    expect(ran).toEqual([]);
  });

  it('forces routes in its child by path, and refuses a path to nothing (unknown_router)', async () => {
    const ran: string[] = [];
    const flow = parentFlow(reviewFlow(ran), ran);
    const out = await flow.kickoff({ routes: { 'review › approve': 'redo' } });
    expect(out.status).toBe('completed');
    expect(ran).toEqual(['plan', 'write', 'dropped', 'ship']);
    expect(out.outputs.review).toEqual({ published: false });
    expect(await codeOf(flow.kickoff({ routes: { 'review › nope': 'ok' } }))).toBe('unknown_router');
    expect(await codeOf(flow.kickoff({ routes: { 'plan › approve': 'ok' } }))).toBe('unknown_router');
  });
});

describe("a child flow's pause, answered through its parent", () => {
  it('takes the flow step name, the path, or no step when one thing waits; checks routes and paths', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const flow = parentFlow(reviewFlow(ran), ran, store);
    for (const id of ['h-1', 'h-2', 'h-3']) await flow.kickoff({ inputs: { id } });
    expect(await codeOf(flow.resume('h-1', { route: 'maybe' }))).toBe('unknown_route');
    expect(await codeOf(flow.resume('h-1', { route: 'ok', step: 'review › nope' }))).toBe('answer_required');
    expect(await codeOf(flow.resume('h-1', { route: 'ok', step: 'plan › approve' }))).toBe('answer_required');
    expect(await codeOf(flow.signal('h-1', 'paid'))).toBe('no_waiter');
    const outs = await Promise.all([
      flow.resume('h-1', { route: 'ok' }),
      flow.resume('h-2', { route: 'ok', step: 'review' }),
      flow.resume('h-3', { route: 'redo', step: 'review › approve', feedback: 'no' }),
    ]);
    expect(outs.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
    expect(outs[2]?.outputs.review).toEqual({ published: false });
    // Each child ran `write` once, before its pause.
    expect(ran.filter((r) => r === 'write')).toHaveLength(3);
    const child = await readHistory(store, 'h-1/review');
    expect(child.checkpoints.map((c) => c.checkpoint)).toEqual(['write', 'approve', 'done']);
  });

  it("tells on the parent's events that it went on with its child's answer (flow.resumed)", async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const flow = parentFlow(reviewFlow(ran), ran, store);
    await flow.kickoff({ inputs: { id: 'e-1' } });
    const events: { type: string; runId: string; step?: string; route?: string }[] = [];
    await flow.resume(
      'e-1',
      { route: 'ok' },
      { onRun: (run) => run.events$.subscribe((e) => events.push(e)) },
    );
    const own = events.filter((e) => e.runId === 'e-1' && e.type === 'flow.resumed');
    expect(own).toEqual([expect.objectContaining({ type: 'flow.resumed', step: 'review', route: 'ok' })]);
    // The child tells its own, relayed with its run id (and, as every relayed event, the parent's step).
    const child = events.filter((e) => e.runId === 'e-1/review' && e.type === 'flow.resumed');
    expect(child).toEqual([expect.objectContaining({ step: 'review', route: 'ok' })]);
  });

  it('of two answers at once, exactly one goes on', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const flow = parentFlow(reviewFlow(ran), ran, store);
    await flow.kickoff({ inputs: { id: 'r-1' } });
    const settled = await Promise.allSettled([
      flow.resume('r-1', { route: 'ok' }),
      flow.resume('r-1', { route: 'redo' }),
    ]);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    expect(ran.filter((r) => r === 'done' || r === 'dropped')).toHaveLength(1);
  });

  it("signal on the parent completes the child's wait for the event", async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const flow = parentFlow(paymentFlow(ran), ran, store);
    const paused = await flow.kickoff({ inputs: { id: 's-1' } });
    expect(paused.pending).toMatchObject({ kind: 'flow', path: 'review › paid' });
    const noWaiter = await flow.signal('s-1', 'refunded').catch((e: unknown) => e);
    expect(noWaiter).toMatchObject({ code: 'no_waiter' });
    expect(String((noWaiter as Error).message)).toContain('"paid" at "review › paid"');
    const out = await flow.signal('s-1', 'paid', { amount: 42 });
    expect(out.status).toBe('completed');
    expect(out.outputs.review).toEqual({ receipt: { amount: 42 } });
    expect(ran).toEqual(['plan', 'bill', 'receipt', 'ship']);
  });

  it('crew approvals on the parent reach a crew waiting inside the child', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const refunded: number[] = [];
    const llm = clerkModel();
    const flow = parentFlow(refundFlow(llm, refunded), ran, store);
    const paused = await flow.kickoff({ inputs: { id: 'c-1' } });
    expect(paused.status).toBe('paused');
    expect(paused.pending).toMatchObject({
      kind: 'flow',
      path: 'review › pay',
      pending: [{ kind: 'crew', step: 'pay', pending: [{ kind: 'approval' }] }],
    });
    const pending = paused.pending?.kind === 'flow' ? paused.pending.pending[0] : undefined;
    const call = pending?.kind === 'crew' ? pending.pending[0] : undefined;
    const callId = call?.kind === 'approval' ? call.callId : 'none';
    const calls = llm.calls.length;
    expect(await codeOf(flow.resume('c-1', { approvals: { nope: { approve: true } } }))).toBe(
      'invalid_option',
    );
    const out = await flow.resume('c-1', { approvals: { [callId]: { approve: true } } });
    expect(out.status).toBe('completed');
    expect(refunded).toEqual([70]);
    expect(String(out.outputs.review)).toContain('refunded 70');
    expect(llm.calls.length).toBe(calls + 1);
  });

  it("times out the child's due wait when the parent is resumed without an answer (manual clock)", async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const ran: string[] = [];
    const flow = parentFlow(reviewFlow(ran, 60_000), ran, store, { clock });
    const paused = await flow.kickoff({ inputs: { id: 't-1' } });
    const deadline = clock.now() + 60_000;
    expect(paused.pending).toMatchObject({ kind: 'flow', timeoutAt: deadline });
    expect(await flow.nextDeadline('t-1')).toBe(deadline);
    expect(await codeOf(flow.resume('t-1'))).toBe('answer_required');
    clock.advance(60_000);
    expect(await codeOf(flow.resume('t-1', { route: 'ok' }))).toBe('deadline_passed');
    const out = await flow.resume('t-1');
    expect(out.status).toBe('completed');
    expect(ran).toEqual(['plan', 'write', 'dropped', 'ship']);
    const child = await flow.getRun('t-1');
    expect(child?.status).toBe('completed');
  });
});
