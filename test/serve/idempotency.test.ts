import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/index.js';
import type { StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { authed, json, researchCrew, tempStore, testServer, waitingCrew } from './serve-helpers.js';

let temp: ReturnType<typeof tempStore>;
let server: StatecrewServer;
let waiting: ReturnType<typeof waitingCrew>;

beforeEach(() => {
  temp = tempStore();
  waiting = waitingCrew('gate');
  server = testServer(temp.store, { crews: [researchCrew(), waiting.crew] });
});

afterEach(async () => {
  waiting.release();
  await server.close();
  await temp.dispose();
});

/** `POST /runs` (or `/runs/wait`) of `body` under Idempotency-Key `key`. */
const post = (on: StatecrewServer, key: string | undefined, body: unknown, path = '/runs') =>
  on.request(path, authed({ body, headers: key === undefined ? {} : { 'idempotency-key': key } }));

const research = { definition: 'research', inputs: { topic: 'AI' } };

describe('POST /runs with an Idempotency-Key', { timeout: 60_000 }, () => {
  it('starts one run for a key sent twice with the same body, answering the second with that run', async () => {
    const first = await post(server, 'order-7', research);
    const started = await json(first);
    expect(first.status).toBe(202);
    await liveRuns(server).get(started.id as string)?.done;
    const again = await post(server, 'order-7', { inputs: { topic: 'AI' }, definition: 'research' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(started);
    expect((await temp.store.listRuns()).map((h) => h.id)).toEqual([started.id]);
  });

  it('starts one run for two requests with one key at once, on one server and on two servers over one store', async () => {
    const otherStore = new SqliteStore({ path: join(temp.dir, 'runs.db') });
    const other = testServer(otherStore, {
      crews: [researchCrew()],
    });
    try {
      const same = await Promise.all([post(server, 'k-1', research), post(server, 'k-1', research)]);
      const twoServers = await Promise.all([post(server, 'k-2', research), post(other, 'k-2', research)]);
      for (const pair of [same, twoServers]) {
        const bodies = await Promise.all(pair.map(json));
        expect(pair.map((r) => r.status)).toEqual([202, 202]);
        expect(bodies[0]?.id).toBe(bodies[1]?.id);
      }
      for (const on of [server, other])
        await Promise.all(
          liveRuns(on)
            .ids()
            .map((id) => liveRuns(on).get(id)?.done),
        );
      const heads = await temp.store.listRuns();
      expect(heads).toHaveLength(2);
      expect(heads.map((h) => h.status)).toEqual(['completed', 'completed']);
    } finally {
      await other.close();
      await otherStore.close();
    }
  });

  it('refuses the key with another body (422 idempotency_key_reused), and a key beside a body id (400)', async () => {
    const first = await json(await post(server, 'k-3', research));
    await liveRuns(server).get(first.id as string)?.done;
    for (const body of [
      { definition: 'research', inputs: { topic: 'ML' } },
      { definition: 'gate', inputs: {} },
    ]) {
      const refused = await post(server, 'k-3', body);
      expect(refused.status).toBe(422);
      expect((await json(refused)).error).toMatchObject({
        code: 'idempotency_key_reused',
        details: { key: 'k-3', id: first.id },
      });
    }
    const both = await post(server, 'k-4', { ...research, id: 'mine' });
    expect(both.status).toBe(400);
    expect((await json(both)).error?.message).toContain('header.idempotency-key');
    expect(await temp.store.listRuns()).toHaveLength(1);
  });
});

describe('POST /runs/wait', { timeout: 60_000 }, () => {
  it('answers 200 with the run once it settled, and once a flow paused, with what it waits for', async () => {
    const done = await post(server, undefined, { ...research, id: 'w-1' }, '/runs/wait');
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({
      id: 'w-1',
      status: 'completed',
      execution: { status: 'completed' },
    });
    const paused = await post(
      server,
      undefined,
      { definition: 'review', inputs: { title: 'T' } },
      '/runs/wait',
    );
    expect(paused.status).toBe(200);
    expect(await json(paused)).toMatchObject({
      status: 'paused',
      pending: [expect.objectContaining({ step: 'approve' })],
    });
  });

  it('answers 202 with the run as it is when the time passes first, and the run goes on to its end', async () => {
    const late = await post(
      server,
      'slow-1',
      { definition: 'gate', inputs: {}, timeoutMs: 50 },
      '/runs/wait',
    );
    const body = await json(late);
    expect(late.status).toBe(202);
    expect(body).toMatchObject({ definition: 'gate', status: 'running', live: true });
    waiting.release();
    await liveRuns(server).get(body.id as string)?.done;
    expect((await temp.store.readRun(body.id as string))?.status).toBe('completed');
    const replay = await post(
      server,
      'slow-1',
      { definition: 'gate', inputs: {}, timeoutMs: 0 },
      '/runs/wait',
    );
    expect(replay.status).toBe(200);
    expect(await json(replay)).toMatchObject({ id: body.id, status: 'completed' });
  });
});
