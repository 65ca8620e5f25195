import { describe, expect, it } from 'vitest';
import { createFlow, createRunner, type SqliteStore } from '../../src/index.js';
import type { StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createManualClock } from '../../src/testing.js';
import { authed, json, refundCrew, serverPerTest, testServer, waitingCrew } from './serve-helpers.js';

let store: SqliteStore;
let server: StatecrewServer;
serverPerTest((made) => {
  ({ store, server } = made);
});

/** POSTs `body` to `path` and, on a 202, waits until this process no longer runs the run. */
async function post(path: string, body?: unknown) {
  const response = await server.request(
    path,
    authed({ method: 'POST', ...(body === undefined ? {} : { body }) }),
  );
  const answer = await json(response);
  if (response.status === 202) await liveRuns(server).get(answer.id as string)?.done;
  return { status: response.status, answer };
}

const detail = async (id: string) => json(await server.request(`/runs/${id}`, authed()));

describe('POST /runs/:id/resume', { timeout: 30_000 }, () => {
  it('answers a flow’s human step and runs the flow to completion here', async () => {
    expect((await post('/runs', { definition: 'review', inputs: { title: 'T' }, id: 'f1' })).status).toBe(
      202,
    );
    const resumed = await post('/runs/f1/resume', { route: 'yes', feedback: 'ship it' });
    expect(resumed).toEqual({ status: 202, answer: { id: 'f1', definition: 'review', kind: 'flow' } });
    const run = await detail('f1');
    expect(run.status).toBe('completed');
    expect(run.flow).toMatchObject({
      trail: ['draft', 'approve', 'publish'],
      outputs: { publish: 'published' },
    });
  });

  it('answers a crew’s tool call waiting for approval: the call runs and the crew completes', async () => {
    const done: number[] = [];
    await server.close();
    server = testServer(store, { crews: [refundCrew(done)], flows: [] });
    await post('/runs', { definition: 'refunds', inputs: {}, id: 'c1' });
    const paused = await detail('c1');
    expect(paused.status).toBe('paused');
    const [call] = paused.pending as { kind: string; callId: string; tool: string; args: unknown }[];
    expect(call).toMatchObject({ kind: 'approval', tool: 'refund', args: { amount: 42 } });
    expect(done).toEqual([]);
    const resumed = await post('/runs/c1/resume', { approvals: { [call?.callId ?? '']: { approve: true } } });
    expect(resumed.status).toBe(202);
    expect(done).toEqual([42]);
    const run = await detail('c1');
    expect(run.status).toBe('completed');
    expect(run.execution).toMatchObject({ status: 'completed', output: 'done: refunded 42' });
  });

  it('answers 409 not_paused to an answer for a run that is not paused, running nothing', async () => {
    await post('/runs', { definition: 'research', inputs: { topic: 'AI' }, id: 'done' });
    const { status, answer } = await post('/runs/done/resume', { approvals: { x: { approve: true } } });
    expect(status).toBe(409);
    expect(answer.error?.code).toBe('not_paused');
  });

  it('answers 400 for a route outside the human step’s routes, and for a crew answer that is not one', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'T' }, id: 'f2' });
    const wrongRoute = await post('/runs/f2/resume', { route: 'maybe' });
    expect(wrongRoute.status).toBe(400);
    expect(wrongRoute.answer.error?.code).toBe('unknown_route');
    const noAnswer = await post('/runs/f2/resume', {});
    expect(noAnswer.status).toBe(400);
    expect(noAnswer.answer.error?.code).toBe('answer_required');
    const badShape = await post('/runs/f2/resume', { approvals: { x: { approve: 'yes' } } });
    expect(badShape.status).toBe(400);
    expect(badShape.answer.error?.message).toContain('body.approvals.x.approve');
    expect((await store.readRun('f2'))?.status).toBe('paused');
  });

  it('answers 404 for an unknown run', async () => {
    const { status, answer } = await post('/runs/ghost/resume', { route: 'yes' });
    expect(status).toBe(404);
    expect(answer.error?.code).toBe('run_not_found');
  });

  it('answers 409 run_locked for a run another owner holds (kicked off beside the server, its model waiting)', async () => {
    const slow = waitingCrew();
    const run = slow.crew.run({ executionId: 'held', store });
    await slow.called;
    const { status, answer } = await post('/runs/held/resume', {});
    expect(status).toBe(409);
    expect(answer.error?.code).toBe('run_locked');
    expect(answer.error?.details).toMatchObject({ id: 'held' });
    const abort = await post('/runs/held/abort');
    expect(abort.status).toBe(409);
    expect(abort.answer.error?.code).toBe('run_locked');
    slow.release();
    expect((await run.result).status).toBe('completed');
  });
});

describe('POST /runs/:id/signal', { timeout: 30_000 }, () => {
  it('completes a flow’s wait step with the payload and runs it to completion here', async () => {
    await post('/runs', { definition: 'order', inputs: { item: 'lamp' }, id: 'o1' });
    expect((await detail('o1')).pending).toEqual([
      expect.objectContaining({ step: 'payment', kind: 'event' }),
    ]);
    const signalled = await post('/runs/o1/signal', { event: 'payment.received', payload: { amount: 9 } });
    expect(signalled).toEqual({ status: 202, answer: { id: 'o1', definition: 'order', kind: 'flow' } });
    const run = await detail('o1');
    expect(run.status).toBe('completed');
    expect(run.flow).toMatchObject({ outputs: { ship: 'shipped after {"amount":9}' } });
  });

  it('answers 409 no_waiter for an event nothing waits for, 400 without an event', async () => {
    await post('/runs', { definition: 'order', inputs: { item: 'lamp' }, id: 'o2' });
    const wrong = await post('/runs/o2/signal', { event: 'refund.asked' });
    expect(wrong.status).toBe(409);
    expect(wrong.answer.error?.code).toBe('no_waiter');
    const missing = await post('/runs/o2/signal', { payload: 1 });
    expect(missing.status).toBe(400);
    expect(missing.answer.error?.message).toContain('body.event');
    expect((await store.readRun('o2'))?.status).toBe('paused');
  });

  it('answers 409 deadline_passed to a signal after the wait’s deadline; the run then times out', async () => {
    const clock = createManualClock();
    const late = createFlow({ name: 'late-order', initialState: {}, clock })
      .start('invoice', () => 'sent')
      .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 60_000, onTimeout: 'late' })
      .listen('ship', 'payment', () => 'shipped')
      .listen('chase', 'late', () => 'chased');
    await server.close();
    server = testServer(store, { flows: [late] });
    await post('/runs', { definition: 'late-order', inputs: {}, id: 'l1' });
    clock.advance(60_000);
    const refused = await post('/runs/l1/signal', { event: 'payment.received' });
    expect(refused.status).toBe(409);
    expect(refused.answer.error?.code).toBe('deadline_passed');
    expect((await store.readRun('l1'))?.status).toBe('paused');
    const runner = createRunner({ store, flows: [late], clock });
    expect((await runner.recover()).timedOut).toEqual(['l1']);
    await runner.close();
    const run = await detail('l1');
    expect(run.status).toBe('completed');
    expect(run.flow).toMatchObject({ trail: ['invoice', 'payment', 'chase'] });
  });
});

describe('POST /runs/:id/abort', { timeout: 30_000 }, () => {
  it('aborts a run live in this process and answers once it is kept as aborted', async () => {
    const slow = waitingCrew('slow');
    await server.close();
    server = testServer(store, { crews: [slow.crew], flows: [] });
    const response = await server.request(
      '/runs',
      authed({ body: { definition: 'slow', inputs: {}, id: 's1' } }),
    );
    expect(response.status).toBe(202);
    await slow.called;
    expect(liveRuns(server).has('s1')).toBe(true);
    expect((await detail('s1')).live).toBe(true);
    const aborted = await post('/runs/s1/abort');
    expect(aborted).toEqual({
      status: 200,
      answer: { id: 's1', definition: 'slow', kind: 'crew', status: 'aborted' },
    });
    expect((await store.readRun('s1'))?.status).toBe('aborted');
    expect(liveRuns(server).has('s1')).toBe(false);
  });

  it('still aborts its run after a second POST /runs with the same id was refused (run_exists)', async () => {
    const slow = waitingCrew('slow');
    await server.close();
    server = testServer(store, { crews: [slow.crew], flows: [] });
    const start = { definition: 'slow', inputs: {}, id: 'twice' };
    expect((await server.request('/runs', authed({ body: start }))).status).toBe(202);
    await slow.called;
    const again = await server.request('/runs', authed({ body: start }));
    expect(again.status).toBe(409);
    expect((await json(again)).error?.code).toBe('run_exists');
    // The refused run never held the id: the first one is still this server's, live and abortable.
    expect(liveRuns(server).has('twice')).toBe(true);
    expect((await detail('twice')).live).toBe(true);
    const aborted = await post('/runs/twice/abort');
    expect(aborted).toEqual({
      status: 200,
      answer: { id: 'twice', definition: 'slow', kind: 'crew', status: 'aborted' },
    });
    expect((await store.readRun('twice'))?.status).toBe('aborted');
  });

  it('answers 404 for an unknown run and 409 not_running for a run nothing runs', async () => {
    expect((await post('/runs/ghost/abort')).answer.error?.code).toBe('run_not_found');
    await post('/runs', { definition: 'review', inputs: { title: 'T' }, id: 'f3' });
    const { status, answer } = await post('/runs/f3/abort');
    expect(status).toBe(409);
    expect(answer.error?.code).toBe('not_running');
  });
});
