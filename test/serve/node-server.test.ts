import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { TOKEN, tempStore, testServer } from './serve-helpers.js';

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  server = testServer(store);
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  await listening.close();
  await temp.dispose();
});

/** A request to the listening server over the network, with the token. */
async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${listening.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (response.status === 202) await liveRuns(server).get(answer.id as string)?.done;
  return { status: response.status, answer };
}

describe('a server on @hono/node-server', { timeout: 30_000 }, () => {
  it('listens on a free port on 127.0.0.1 and serves runs end to end: start, list, page, get, resume to completion', async () => {
    expect(listening.url).toBe(`http://127.0.0.1:${listening.port}`);
    expect(listening.port).toBeGreaterThan(0);
    for (const id of ['n1', 'n2', 'n3']) {
      expect(
        (await call('POST', '/runs', { definition: 'research', inputs: { topic: 'AI' }, id })).status,
      ).toBe(202);
    }
    const started = await call('POST', '/runs', {
      definition: 'review',
      inputs: { title: 'Launch' },
      id: 'n4',
    });
    expect(started).toEqual({ status: 202, answer: { id: 'n4', definition: 'review', kind: 'flow' } });
    const first = await call('GET', '/runs?limit=3');
    expect((first.answer.runs as unknown[]).length).toBe(3);
    const cursor = first.answer.nextCursor as string;
    const second = await call('GET', `/runs?limit=3&cursor=${encodeURIComponent(cursor)}`);
    expect((second.answer.runs as unknown[]).length).toBe(1);
    expect(second.answer.nextCursor).toBeNull();
    const ids = [...(first.answer.runs as { id: string }[]), ...(second.answer.runs as { id: string }[])].map(
      (r) => r.id,
    );
    expect([...ids].sort()).toEqual(['n1', 'n2', 'n3', 'n4']);
    const paused = await call('GET', '/runs/n4');
    expect(paused.answer).toMatchObject({
      status: 'paused',
      pending: [expect.objectContaining({ step: 'approve' })],
    });
    expect((await call('POST', '/runs/n4/resume', { route: 'no', feedback: 'not yet' })).status).toBe(202);
    const done = await call('GET', '/runs/n4');
    expect(done.answer).toMatchObject({
      status: 'completed',
      flow: { trail: ['draft', 'approve', 'discard'] },
    });
    expect((await store.readRun('n4'))?.status).toBe('completed');
  });

  it('answers 401 over the network without the token', async () => {
    const response = await fetch(`${listening.url}/runs`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
