import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, type Checkpoint, Crew, createFlow, type NodeDiff, Task } from '../../src/index.js';
import { type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createScriptedModel } from '../../src/testing.js';
import { type ErrorJson, reviewFlow, TOKEN, tempStore, testServer } from './serve-helpers.js';

/** A flow that routes a refund by its size: a small one is paid, a large one escalated. */
function priceFlow() {
  return createFlow({ name: 'price', initialState: { amount: 0 } })
    .start('check', ({ state }) => `asks $${state.amount}`)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .listen('pay', 'small', ({ state }) => `paid $${state.amount}`)
    .listen('escalate', 'large', () => 'escalated');
}

/** A crew of two tasks whose model counts its calls in `calls` and says which task it did. */
function pairCrew(calls: string[]) {
  const llm = createScriptedModel((request) => {
    const task = request.prompt.includes('Polish') ? 'polish' : 'draft';
    calls.push(task);
    return `${task} #${calls.length}`;
  });
  const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'b', llm });
  return new Crew({
    name: 'pair',
    tasks: [
      new Task({ name: 'draft', description: 'Draft it', expectedOutput: 'text', agent: writer }),
      new Task({ name: 'polish', description: 'Polish it', expectedOutput: 'text', agent: writer }),
    ],
  });
}

/** What the routes answer, typed loosely for assertions. */
type Answer = Record<string, unknown> & {
  error?: ErrorJson;
  id?: string;
  checkpoints?: Checkpoint[];
  nodes?: NodeDiff[];
  path?: { a: string[]; b: string[]; same: boolean; divergesAt?: number };
  runs?: { id: string; thread?: string; forkedFrom?: unknown }[];
};

let temp: ReturnType<typeof tempStore>;
let server: StatecrewServer;
let listening: Listening;
let calls: string[];

beforeEach(async () => {
  temp = tempStore();
  calls = [];
  server = testServer(temp.store, { crews: [pairCrew(calls)], flows: [priceFlow(), reviewFlow()] });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  await server.close();
  await listening.close();
  await temp.dispose();
});

/** A request to the listening server with the token: its status, headers and JSON body. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const all: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...headers };
  if (body !== undefined) all['content-type'] = 'application/json';
  const response = await fetch(`${listening.url}${path}`, {
    method,
    headers: all,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer };
}

/** Waits until this server no longer runs run `id`. */
const settled = async (id: string) => liveRuns(server).get(id)?.done;

/** Starts a run and waits until it settled. */
async function runToEnd(body: Record<string, unknown>) {
  const started = await call('POST', '/runs/wait', body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
}

describe('POST /runs/:id/fork', { timeout: 60_000 }, () => {
  it('forks a flow at a checkpoint with its state edited: the fork takes the other route, and says where it came from', async () => {
    await runToEnd({ definition: 'price', inputs: { amount: 500 }, id: 'big' });
    const forked = await call('POST', '/runs/big/fork', { at: 'check', state: { amount: 50 }, id: 'small' });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    expect(forked.body).toEqual({
      id: 'small',
      definition: 'price',
      kind: 'flow',
      forkedFrom: { runId: 'big', checkpoint: 'check' },
    });
    await settled('small');
    const detail = await call('GET', '/runs/small');
    expect(detail.body).toMatchObject({
      status: 'completed',
      forkedFrom: { runId: 'big', checkpoint: 'check' },
    });
    const history = await call('GET', '/runs/small/history');
    expect(history.body).toMatchObject({ forkedFrom: { runId: 'big', checkpoint: 'check' } });
    expect(history.body.checkpoints?.at(-1)).toMatchObject({ checkpoint: 'pay', output: 'paid $50' });

    const diff = await call('GET', '/runs/big/diff/small');
    expect(diff.status).toBe(200);
    expect(diff.body.path).toMatchObject({
      a: ['check', 'size', 'escalate'],
      b: ['check', 'size', 'pay'],
      same: false,
    });
    expect(diff.body.nodes?.map((n) => n.nodeId)).toEqual(
      expect.arrayContaining(['size', 'escalate', 'pay']),
    );
  });

  it('forks a crew at a task with an earlier output edited: no model call for what is kept', async () => {
    await runToEnd({ definition: 'pair', id: 'first' });
    expect(calls).toEqual(['draft', 'polish']);
    const forked = await call('POST', '/runs/first/fork', {
      at: 'draft',
      outputs: { draft: 'an edited draft' },
    });
    expect(forked.status, JSON.stringify(forked.body)).toBe(202);
    const id = forked.body.id as string;
    expect(forked.body).toMatchObject({
      definition: 'pair',
      kind: 'crew',
      forkedFrom: { runId: 'first', checkpoint: 'draft' },
    });
    await settled(id);
    expect(calls).toEqual(['draft', 'polish', 'polish']);
    const history = await call('GET', `/runs/${id}/history`);
    expect(history.body.checkpoints?.map((c) => [c.checkpoint, c.output])).toEqual([
      ['draft', 'an edited draft'],
      ['polish', 'polish #3'],
    ]);
  });

  it('answers a fork sent again with the same Idempotency-Key with the fork it made', async () => {
    await runToEnd({ definition: 'pair', id: 'src' });
    const key = { 'idempotency-key': 'fork-once' };
    const body = { at: 1, outputs: { draft: 'once' } };
    const first = await call('POST', '/runs/src/fork', body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.forkedFrom).toEqual({ runId: 'src', checkpoint: 'draft' });
    await settled(first.body.id as string);
    const again = await call('POST', '/runs/src/fork', body, key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(calls).toEqual(['draft', 'polish', 'polish']);
    const elsewhere = await call('POST', '/runs/src/fork', { at: 'polish' }, key);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error?.code).toBe('idempotency_key_reused');
  });

  it('refuses what it cannot fork with coded errors', async () => {
    await runToEnd({ definition: 'pair', id: 'crew-run' });
    const cases: [string, unknown, number, string][] = [
      ['/runs/ghost/fork', { at: 'draft' }, 404, 'run_not_found'],
      ['/runs/crew-run/fork', { at: 'nowhere' }, 404, 'checkpoint_not_found'],
      ['/runs/crew-run/fork', { at: 'draft', state: { x: 1 } }, 400, 'invalid_request'],
      ['/runs/crew-run/fork', {}, 400, 'invalid_request'],
      ['/runs/crew-run/fork', { at: 0 }, 400, 'invalid_request'],
      ['/runs/crew-run/fork', { at: 'draft', id: 'crew-run' }, 409, 'run_exists'],
    ];
    for (const [path, body, status, code] of cases) {
      const answer = await call('POST', path, body);
      expect([answer.status, answer.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
    }
  });
});

describe('threads', { timeout: 60_000 }, () => {
  it("lists a thread's runs oldest first, at GET /threads/:thread/runs and GET /runs?thread=", async () => {
    await runToEnd({ definition: 'price', inputs: { amount: 5 }, id: 't-1', thread: 'chat-1' });
    await runToEnd({ definition: 'price', inputs: { amount: 7 }, id: 'other' });
    await runToEnd({ definition: 'price', inputs: { amount: 9 }, id: 't-2', thread: 'chat-1' });
    const listed = await call('GET', '/threads/chat-1/runs');
    expect(listed.status).toBe(200);
    expect(listed.body.thread).toBe('chat-1');
    expect(listed.body.runs?.map((r) => [r.id, r.thread])).toEqual([
      ['t-1', 'chat-1'],
      ['t-2', 'chat-1'],
    ]);
    const filtered = await call('GET', '/runs?thread=chat-1');
    expect(filtered.body.runs?.map((r) => r.id).sort()).toEqual(['t-1', 't-2']);
    const none = await call('GET', '/threads/never/runs');
    expect(none.body).toEqual({ thread: 'never', runs: [] });
  });

  it('runs a crew on a thread, and refuses a second run on a thread whose last run waits (409 thread_busy)', async () => {
    await runToEnd({ definition: 'pair', id: 'c-1', thread: 'crew-chat' });
    const listed = await call('GET', '/threads/crew-chat/runs');
    expect(listed.body.runs?.map((r) => [r.id, r.thread])).toEqual([['c-1', 'crew-chat']]);
    await runToEnd({ definition: 'review', inputs: { title: 'T' }, id: 'waits', thread: 'busy' });
    const refused = await call('POST', '/runs', {
      definition: 'review',
      inputs: { title: 'U' },
      thread: 'busy',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'thread_busy',
      details: { thread: 'busy', runId: 'waits' },
    });
  });
});
