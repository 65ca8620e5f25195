import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Checkpoint, createFlow, type NodeDiff } from '../../src/index.js';
import { type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { type ErrorJson, researchCrew, reviewFlow, TOKEN, tempStore, testServer } from './serve-helpers.js';

/** What the routes answer, typed loosely for assertions. */
type Answer = Record<string, unknown> & {
  error?: ErrorJson;
  checkpoints?: Checkpoint[];
  nodes?: NodeDiff[];
  next?: number;
  flow?: { state: unknown };
};

/** A flow of four steps in a row; the last leaves a Date, a Map, a Set and a BigInt in its state. */
function tallyFlow() {
  return createFlow({
    name: 'tally',
    initialState: {
      n: 0,
      seen: new Map<string, number>(),
      tags: new Set<string>(),
      when: new Date(0),
      big: 0n,
    },
  })
    .start('one', ({ state }) => {
      state.n += 1;
      return 'a';
    })
    .listen('two', 'one', ({ state }) => {
      state.n += 1;
      return 'b';
    })
    .listen('three', 'two', ({ state }) => {
      state.n += 1;
      return 'c';
    })
    .listen('four', 'three', ({ state }) => {
      state.seen.set('k', state.n);
      state.tags.add('done');
      state.when = new Date(Date.UTC(2026, 0, 2));
      state.big = 12345678901234567890n;
      return { when: state.when };
    });
}

let temp: ReturnType<typeof tempStore>;
let server: StatecrewServer;
let listening: Listening;

beforeEach(async () => {
  temp = tempStore();
  server = testServer(temp.store, { crews: [researchCrew()], flows: [reviewFlow(), tallyFlow()] });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  await server.close();
  await listening.close();
  await temp.dispose();
});

/** A request to the listening server with the token; its status and JSON body. */
async function call(method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${listening.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

/** Starts a run and waits until it settled or paused. */
async function runToEnd(definition: string, inputs: Record<string, unknown>, id: string) {
  const started = await call('POST', '/runs/wait', { definition, inputs, id });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
}

/** Answers paused review run `id` with `route` and waits until it settled. */
async function answer(id: string, route: string) {
  const resumed = await call('POST', `/runs/${id}/resume`, { route });
  expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
  await liveRuns(server).get(id)?.done;
}

describe('GET /runs/:id/history', { timeout: 60_000 }, () => {
  it('pages through a run’s checkpoints with after, limit and next', async () => {
    await runToEnd('tally', {}, 't-1');
    const first = await call('GET', '/runs/t-1/history?limit=3');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: 't-1',
      kind: 'flow',
      name: 'tally',
      status: 'completed',
      next: 3,
    });
    expect(first.body.checkpoints?.map((c) => [c.seq, c.checkpoint])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ]);
    expect(first.body.checkpoints?.map((c) => (c.state as { n: number }).n)).toEqual([1, 2, 3]);
    const rest = await call('GET', `/runs/t-1/history?after=${first.body.next}&limit=3`);
    expect(rest.body.checkpoints?.map((c) => c.seq)).toEqual([4]);
    expect(rest.body).not.toHaveProperty('next');
    const whole = await call('GET', '/runs/t-1/history');
    expect(whole.body.checkpoints).toHaveLength(4);
  });

  it('writes what the codec keeps beyond JSON as plain JSON, as GET /runs/:id does', async () => {
    await runToEnd('tally', {}, 't-2');
    const { body } = await call('GET', '/runs/t-2/history?after=3');
    const last = body.checkpoints?.[0];
    expect(last?.output).toEqual({ when: '2026-01-02T00:00:00.000Z' });
    expect(last?.state).toEqual({
      id: 't-2',
      n: 3,
      seen: [['k', 3]],
      tags: ['done'],
      when: '2026-01-02T00:00:00.000Z',
      big: '12345678901234567890',
    });
    const detail = await call('GET', '/runs/t-2');
    expect(detail.body.flow?.state).toEqual(last?.state);
  });

  it("lists a crew run's task runs", async () => {
    await runToEnd('research', { topic: 'AI' }, 'c-1');
    const { status, body } = await call('GET', '/runs/c-1/history');
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 'c-1', kind: 'crew', name: 'research', status: 'completed' });
    expect(body.checkpoints).toMatchObject([
      { seq: 1, checkpoint: 'research', kind: 'task', status: 'completed', output: 'notes on AI' },
    ]);
  });

  it('answers 404 run_not_found for an unknown run and 400 for a page out of bounds', async () => {
    const missing = await call('GET', '/runs/nope/history');
    expect(missing.status).toBe(404);
    expect(missing.body.error?.code).toBe('run_not_found');
    expect(missing.body.error?.message).toContain('GET /runs/:id/history');
    for (const query of ['limit=0', 'limit=1001', 'after=-1', 'after=soon', 'page=2']) {
      const bad = await call('GET', `/runs/nope/history?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error?.code, query).toBe('invalid_request');
    }
  });
});

describe('GET /runs/:a/diff/:b', { timeout: 60_000 }, () => {
  it('tells where two runs of a flow part, and the nodes only one has', async () => {
    await runToEnd('review', { title: 'T' }, 'yes');
    await runToEnd('review', { title: 'T' }, 'no');
    await answer('yes', 'yes');
    await answer('no', 'no');
    const { status, body } = await call('GET', '/runs/yes/diff/no');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      a: 'yes',
      b: 'no',
      same: false,
      path: {
        a: ['draft', 'approve', 'publish'],
        b: ['draft', 'approve', 'discard'],
        same: false,
        divergesAt: 2,
      },
    });
    // Each run's state holds its own id: every node's state differs.
    expect(body.nodes?.map((n) => [n.nodeId, n.change])).toEqual([
      ['draft', 'changed'],
      ['approve', 'changed'],
      ['publish', 'removed'],
      ['discard', 'added'],
    ]);
    const itself = await call('GET', '/runs/yes/diff/yes');
    expect(itself.body).toMatchObject({ same: true, nodes: [] });
  });

  it('answers 404 run_not_found naming the id the store does not hold', async () => {
    await runToEnd('research', { topic: 'AI' }, 'c-2');
    const { status, body } = await call('GET', '/runs/c-2/diff/ghost');
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'run_not_found', details: { executionId: 'ghost' } });
  });
});
