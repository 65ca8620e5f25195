import { type BaseEvent, HttpAgent, type Message } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type SqliteStore, Task } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createScriptedModel } from '../../src/testing.js';
import {
  orderFlow,
  refundCrew,
  reviewFlow,
  TOKEN,
  tempStore,
  testServer,
  waitingCrew,
} from './serve-helpers.js';

/** A crew of four tasks in a row whose second fails: the last two are blocked, the run is partial. */
function partialCrew() {
  const llm = createScriptedModel((request) =>
    request.prompt.endsWith('do b') ? new Error('model down') : 'fine',
  );
  const worker = new Agent({ role: 'Worker', goal: 'work', backstory: 'b', llm, maxRetries: 0 });
  const tasks = ['a', 'b', 'c', 'd'].map(
    (name) => new Task({ name, description: `do ${name}`, agent: worker }),
  );
  return new Crew({ name: 'partial', tasks });
}

/** A flow whose `pay` step kicks off the refund crew, whose tool call waits for approval. */
function crewStepFlow(refunded: number[]) {
  const crew = refundCrew(refunded);
  return createFlow({ name: 'orders', initialState: {} })
    .start('receive', () => 'an order')
    .listen('pay', 'receive', async ({ kickoff }) => (await kickoff(crew)).raw);
}

/** A flow whose human step waits a minute at most. */
function deadlineFlow() {
  return createFlow({ name: 'deadline', initialState: {} })
    .start('draft', () => 'a draft')
    .human('approve', 'draft', { routes: ['yes', 'no'], prompt: 'Ship it?', timeoutMs: 60_000 })
    .listen('ship', 'yes', () => 'shipped');
}

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;
let waiting: ReturnType<typeof waitingCrew>;
let refunded: number[];

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  waiting = waitingCrew('gate');
  refunded = [];
  server = testServer(store, {
    crews: [refundCrew(refunded), partialCrew(), waiting.crew],
    flows: [reviewFlow(), orderFlow(), deadlineFlow(), crewStepFlow(refunded)],
  });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  waiting.release();
  await server.close();
  await listening.close();
  await temp.dispose();
});

const auth = { authorization: `Bearer ${TOKEN}` };

/** POSTs JSON; a 202 waits until the run it started or resumed settles or pauses. */
async function post(path: string, body: unknown) {
  const response = await fetch(`${listening.url}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { id?: string; error?: { code: string } };
  if (response.status === 202) await liveRuns(server).get(answer.id as string)?.done;
  return { status: response.status, answer };
}

/** Waits until this server no longer runs run `id`. */
const settled = async (id: string) => liveRuns(server).get(id)?.done;

/** An `HttpAgent` on run `id`'s AG-UI route. */
const agentOf = (id: string, headers: Record<string, string> = {}) =>
  new HttpAgent({ url: `${listening.url}/runs/${id}/agui`, headers: { ...auth, ...headers } });

/** Runs `agent` once: the events it took (each checked by its own verifier) and its new messages. */
async function runOnce(agent: HttpAgent, input: Parameters<HttpAgent['runAgent']>[0] = {}) {
  const events: BaseEvent[] = [];
  const { newMessages } = await agent.runAgent(input, { onEvent: ({ event }) => void events.push(event) });
  return { events, newMessages };
}

interface Frame {
  id: string | undefined;
  event: BaseEvent & Record<string, unknown>;
}

/** The frames of run `id`'s AG-UI stream read raw, each event checked by `@ag-ui/core`'s schema. */
async function frames(id: string, headers: Record<string, string> = {}): Promise<Frame[]> {
  const response = await fetch(`${listening.url}/runs/${id}/agui`, { headers: { ...auth, ...headers } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text.split('\n\n').flatMap((frame) => {
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    if (data === undefined) return [];
    const event = JSON.parse(data) as Frame['event'];
    EventSchema.parse(event);
    return [{ id: /^id: (.*)$/m.exec(frame)?.[1], event }];
  });
}

const contents = (messages: Message[]) => messages.map((m) => ('content' in m ? m.content : m.role));
const stepsOf = (events: BaseEvent[], type: string) =>
  events.filter((e) => e.type === type).map((e) => (e as BaseEvent & { stepName: string }).stepName);

describe('/runs/:id/agui as HttpAgent reads it', { timeout: 60_000 }, () => {
  it("says the run's thread as the threadId of its AG-UI runs, else the run's id", async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'A' }, id: 'on-thread', thread: 'chat-9' });
    await post('/runs/on-thread/resume', { route: 'yes' });
    await post('/runs', { definition: 'review', inputs: { title: 'B' }, id: 'alone' });
    const threaded = await runOnce(agentOf('on-thread'));
    const runs = threaded.events.filter((e) => e.type === 'RUN_STARTED' || e.type === 'RUN_FINISHED');
    expect(runs.map((e) => [e.type, (e as BaseEvent & { threadId: string }).threadId])).toEqual([
      ['RUN_STARTED', 'chat-9'],
      ['RUN_FINISHED', 'chat-9'],
      ['RUN_STARTED', 'chat-9'],
      ['RUN_FINISHED', 'chat-9'],
    ]);
    const alone = await runOnce(agentOf('alone'));
    const started = alone.events.filter((e) => e.type === 'RUN_STARTED');
    expect(started.map((e) => (e as BaseEvent & { threadId: string }).threadId)).toEqual(['alone']);
    // The interrupts keep the run's id: an answer names the run, not its thread.
    const finished = alone.events.find((e) => e.type === 'RUN_FINISHED') as BaseEvent & {
      outcome: { interrupts: { id: string }[] };
    };
    expect(finished.outcome.interrupts.map((i) => i.id)).toEqual(['alone:approve']);
  });

  it('gives each flow step one step pair and one text message, under SSE ids no two events share', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'Launch' }, id: 'f1' });
    await post('/runs/f1/resume', { route: 'yes' });
    const { events, newMessages } = await runOnce(agentOf('f1'));
    expect(stepsOf(events, 'STEP_STARTED')).toEqual(['draft', 'approve', 'publish']);
    expect(stepsOf(events, 'STEP_FINISHED')).toEqual(['draft', 'approve', 'publish']);
    expect(contents(newMessages)).toEqual(['draft of Launch', '{"route":"yes"}', 'published']);
    expect(new Set(newMessages.map((m) => m.id)).size).toBe(3);
    const raw = await frames('f1');
    const ids = raw.map((f) => f.id);
    expect(ids.every((id) => id !== undefined && /^\d+:\d+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("ends a paused run with interrupts that say what they ask, the answer's shape and its deadline", async () => {
    await post('/runs', { definition: 'deadline', inputs: {}, id: 'd1' });
    const agent = agentOf('d1');
    await runOnce(agent);
    const [asked] = agent.pendingInterrupts;
    expect(agent.pendingInterrupts).toHaveLength(1);
    expect(asked).toMatchObject({ id: 'd1:approve', reason: 'waits for a human', message: 'Ship it?' });
    expect(asked?.responseSchema).toMatchObject({
      type: 'object',
      properties: { route: { enum: ['yes', 'no'] } },
      required: ['route'],
    });
    const detail = (await (await fetch(`${listening.url}/runs/d1`, { headers: auth })).json()) as {
      pending: { timeoutAt: number }[];
    };
    const timeoutAt = detail.pending[0]?.timeoutAt ?? 0;
    expect(timeoutAt).toBeGreaterThan(Date.now());
    expect(asked?.expiresAt).toBe(new Date(timeoutAt).toISOString());

    await post('/runs', { definition: 'refunds', inputs: {}, id: 'c1' });
    const crewAgent = agentOf('c1');
    await runOnce(crewAgent);
    expect(crewAgent.pendingInterrupts).toEqual([
      expect.objectContaining({
        id: 'refund.1.1.0',
        reason: 'tool refund waits for approval',
        message: `Approve Clerk's call of tool "refund" with {"amount":42}?`,
        responseSchema: expect.objectContaining({
          properties: expect.objectContaining({ approve: expect.objectContaining({ type: 'boolean' }) }),
          required: ['approve'],
        }),
      }),
    ]);
  });

  it('goes on with a flow answered through resume: the stream is what the run did next', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'Launch' }, id: 'f2' });
    const agent = agentOf('f2');
    await runOnce(agent);
    const [asked] = agent.pendingInterrupts;
    const { events, newMessages } = await runOnce(agent, {
      resume: [
        { interruptId: asked?.id ?? '', status: 'resolved', payload: { route: 'yes', feedback: 'ok' } },
      ],
    });
    await settled('f2');
    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(stepsOf(events, 'STEP_STARTED')).toEqual(['approve', 'publish']);
    expect(contents(newMessages)).toEqual(['{"route":"yes","feedback":"ok"}', 'published']);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
    expect((await store.readRun('f2'))?.status).toBe('completed');
  });

  it("answers a crew's tool call and a wait step's event through resume; running the agent again adds nothing", async () => {
    await post('/runs', { definition: 'refunds', inputs: {}, id: 'c2' });
    const agent = agentOf('c2');
    await runOnce(agent);
    const { newMessages } = await runOnce(agent, {
      resume: [{ interruptId: 'refund.1.1.0', status: 'resolved', payload: { approve: true } }],
    });
    await settled('c2');
    expect(refunded).toEqual([42]);
    expect(contents(newMessages)).toEqual(['assistant', 'refunded 42', 'done: refunded 42']);
    const held = structuredClone(agent.messages);
    const again = await runOnce(agent);
    expect(again.newMessages).toEqual([]);
    expect(agent.messages).toEqual(held);
    expect(agent.messages.filter((m) => m.role === 'tool')).toHaveLength(1);

    await post('/runs', { definition: 'order', inputs: { item: 'book' }, id: 'o1' });
    const orders = agentOf('o1');
    await runOnce(orders);
    expect(orders.pendingInterrupts[0]).toMatchObject({
      id: 'o1:payment',
      reason: 'waits for event payment.received',
    });
    const paid = await runOnce(orders, {
      resume: [{ interruptId: 'o1:payment', status: 'resolved', payload: { amount: 5 } }],
    });
    await settled('o1');
    expect(contents(paid.newMessages)).toContain('shipped after {"amount":5}');
  });

  it("answers the tool call of a flow step's crew through resume: the step runs again and the flow completes", async () => {
    await post('/runs', { definition: 'orders', inputs: {}, id: 's1' });
    const agent = agentOf('s1');
    await runOnce(agent);
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({
        id: 's1:pay:refund.1.1.0',
        message: `Approve Clerk's call of tool "refund" with {"amount":42}?`,
        metadata: expect.objectContaining({ kind: 'approval', step: 'pay', callId: 'refund.1.1.0' }),
      }),
    ]);
    const { events } = await runOnce(agent, {
      resume: [{ interruptId: 's1:pay:refund.1.1.0', status: 'resolved', payload: { approve: true } }],
    });
    await settled('s1');
    expect(refunded).toEqual([42]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect((await store.readRun('s1'))?.status).toBe('completed');
  });

  it('refuses a resume entry that names no interrupt or whose payload does not fit, and only cancelled entries as {} is refused, changing nothing', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'T' }, id: 'f3' });
    const unknown = await post('/runs/f3/agui', { resume: [{ interruptId: 'f3:nope', status: 'resolved' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.answer.error).toMatchObject({
      code: 'invalid_request',
      details: { issues: [{ path: 'body.resume.0.interruptId' }] },
    });
    const wrong = await post('/runs/f3/agui', {
      resume: [{ interruptId: 'f3:approve', status: 'resolved', payload: { route: 'maybe' } }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.answer.error).toMatchObject({
      details: { issues: [{ path: 'body.resume.0.payload.route' }] },
    });
    const cancelled = await post('/runs/f3/agui', {
      resume: [{ interruptId: 'f3:approve', status: 'cancelled' }],
    });
    expect(cancelled.status).toBe(400);
    expect(cancelled.answer.error?.code).toBe('answer_required');
    expect((await store.readRun('f3'))?.status).toBe('paused');
  });

  it('resumes a reconnect after any event id exactly after it, in a stream HttpAgent takes', async () => {
    await post('/runs', { definition: 'refunds', inputs: {}, id: 'c3' });
    await post('/runs/c3/resume', { approvals: { 'refund.1.1.0': { approve: true } } });
    const all = await frames('c3');
    expect(all.map((f) => f.event.type)).toContain('TOOL_CALL_RESULT');
    for (const [at, last] of all.entries()) {
      const header = { 'last-event-id': last.id ?? '' };
      const rest = await frames('c3', header);
      const fresh = rest.filter((f) => f.id !== undefined);
      expect(fresh).toEqual(all.slice(at + 1));
      const reopened = rest.slice(0, rest.length - fresh.length).map((f) => f.event.type);
      if (fresh.length > 0 && fresh[0]?.event.type !== 'RUN_STARTED') expect(reopened[0]).toBe('RUN_STARTED');
      for (const type of reopened)
        expect(['RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TOOL_CALL_START']).toContain(type);
      await runOnce(agentOf('c3', header));
    }
  });

  it('ends an aborted run as cancelled and a partial crew as an error naming what failed and what was blocked', async () => {
    await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ definition: 'gate', inputs: {}, id: 'g1' }),
    });
    await waiting.called;
    expect((await post('/runs/g1/abort', {})).status).toBe(200);
    const { events } = await runOnce(agentOf('g1'));
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });

    await post('/runs', { definition: 'partial', inputs: {}, id: 'p1' });
    const last = (await frames('p1')).at(-1)?.event;
    expect(last).toMatchObject({ type: 'RUN_ERROR', code: 'run_partial' });
    expect(last?.message).toBe('The run ended partial: b: model down; c: blocked by b; d: blocked by b');
    const { events: partial } = await runOnce(agentOf('p1'));
    expect(partial.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'run_partial' });
  });
});

describe('one interrupt answered twice at once', { timeout: 60_000 }, () => {
  it('through AG-UI resume and REST resume together: one goes on, the other is refused as REST refuses it', async () => {
    const outcomes: string[] = [];
    for (const id of ['race1', 'race2', 'race3', 'race4']) {
      await post('/runs', { definition: 'review', inputs: { title: 'T' }, id });
      const agui = runOnce(agentOf(id), {
        resume: [{ interruptId: `${id}:approve`, status: 'resolved', payload: { route: 'yes' } }],
      }).then(
        () => ({ status: 200, code: undefined }),
        (error: { status?: number; payload?: { error?: { code?: string } } }) => ({
          status: error.status,
          code: error.payload?.error?.code,
        }),
      );
      const rest = fetch(`${listening.url}/runs/${id}/resume`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ route: 'no' }),
      }).then(async (r) => ({
        status: r.status,
        code: ((await r.json()) as { error?: { code: string } }).error?.code,
      }));
      const [viaAgui, viaRest] = await Promise.all([agui, rest]);
      await settled(id);
      const winners = [viaAgui, viaRest].filter((r) => r.status === 200 || r.status === 202);
      const loser = [viaAgui, viaRest].find((r) => r.status !== 200 && r.status !== 202);
      expect(winners).toHaveLength(1);
      expect(loser?.status).toBe(409);
      expect(['not_paused', 'run_locked']).toContain(loser?.code);
      const run = (await (await fetch(`${listening.url}/runs/${id}`, { headers: auth })).json()) as {
        status: string;
        flow: { trail: string[] };
      };
      expect(run.status).toBe('completed');
      const ran = viaAgui.status === 200 ? 'publish' : 'discard';
      expect(run.flow.trail).toEqual(['draft', 'approve', ran]);
      outcomes.push(ran);
    }
    expect(outcomes).toHaveLength(4);
  });
});
