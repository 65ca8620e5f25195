import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createServer, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createScriptedModel } from '../../src/testing.js';
import { authed, json, researchCrew, TOKEN, tempStore } from './serve-helpers.js';

/**
 * A crew of one task whose model holds each run until the test lets it go: `started` lists the runs
 * whose model was called, in order; `release(id)` lets that run answer.
 */
function heldCrew() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const held = new Map<string, Promise<void>>();
  const gateOf = (id: string) => {
    if (!held.has(id)) held.set(id, new Promise<void>((resolve) => gates.set(id, resolve)));
    return held.get(id) as Promise<void>;
  };
  const llm = createScriptedModel((request) => async () => {
    const id = /run (\S+)/.exec(request.prompt)?.[1] ?? '?';
    started.push(id);
    await gateOf(id);
    return `done ${id}`;
  });
  const agent = new Agent({ role: 'Holder', goal: 'hold', backstory: 'patient', llm });
  const task = new Task({ name: 'hold', description: 'hold run {name}', agent });
  const crew = new Crew({ name: 'held', tasks: [task] });
  const release = (id: string) => {
    gateOf(id);
    gates.get(id)?.();
  };
  return { crew, started, release };
}

let temp: ReturnType<typeof tempStore>;
let server: StatecrewServer;
let held: ReturnType<typeof heldCrew>;

beforeEach(() => {
  temp = tempStore();
  held = heldCrew();
  server = createServer({
    crews: [held.crew, researchCrew()],
    store: temp.store,
    token: TOKEN,
    runner: false,
    maxActiveRuns: 2,
    shutdownGraceMs: 0,
  });
});

afterEach(async () => {
  for (const id of ['r0', 'r1', 'r2', 'r3', 'r4']) held.release(id);
  await server.close();
  await temp.dispose();
});

/** `POST /runs` of the held crew under `id`, and whether it was answered yet. */
function post(id: string) {
  const sent = { answered: false, response: undefined as Promise<Response> | undefined };
  const request = server.request('/runs', authed({ body: { definition: 'held', inputs: { name: id }, id } }));
  sent.response = Promise.resolve(request).then((response) => {
    sent.answered = true;
    return response;
  });
  return sent as { answered: boolean; response: Promise<Response> };
}

async function admission(): Promise<Record<string, unknown>> {
  const response = await server.request('/admission', authed({}));
  expect(response.status).toBe(200);
  return json(response);
}

/** Resolves once `GET /admission` answers `expected` (each look a turn of the event loop apart). */
async function admissionIs(expected: { active: number; queued: number }): Promise<void> {
  for (;;) {
    const now = await admission();
    if (now.active === expected.active && now.queued === expected.queued) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('admission: at most maxActiveRuns runs at once', { timeout: 60_000 }, () => {
  it('admits a burst larger than the bound in order as runs settle; every run completes', async () => {
    const first = [post('r0'), post('r1')];
    for (const sent of first) expect((await sent.response).status).toBe(202);
    const waiting = [];
    for (const [i, id] of ['r2', 'r3', 'r4'].entries()) {
      waiting.push(post(id));
      await admissionIs({ active: 2, queued: i + 1 });
    }
    // While queued, a start is an unanswered POST that GET /admission counts; its run is not stored.
    expect(await admission()).toEqual({ maxActiveRuns: 2, active: 2, queued: 3 });
    expect(waiting.map((sent) => sent.answered)).toEqual([false, false, false]);
    expect(await temp.store.readRun('r2')).toBeUndefined();
    await admissionIs({ active: 2, queued: 3 });

    held.release('r1');
    expect((await waiting[0]?.response)?.status).toBe(202);
    await admissionIs({ active: 2, queued: 2 });
    expect(waiting.map((sent) => sent.answered)).toEqual([true, false, false]);

    held.release('r0');
    expect((await waiting[1]?.response)?.status).toBe(202);
    for (const id of ['r2', 'r3', 'r4']) held.release(id);
    expect((await waiting[2]?.response)?.status).toBe(202);
    for (const id of liveRuns(server).ids()) await liveRuns(server).get(id)?.done;

    expect(held.started).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    for (const id of ['r0', 'r1', 'r2', 'r3', 'r4'])
      expect((await temp.store.readRun(id))?.status, id).toBe('completed');
    expect(await admission()).toEqual({ maxActiveRuns: 2, active: 0, queued: 0 });
  });

  it('POST /runs/wait waits its turn too, then answers the settled run', async () => {
    const first = [post('r0'), post('r1')];
    for (const sent of first) expect((await sent.response).status).toBe(202);
    const waited = server.request(
      '/runs/wait',
      authed({ body: { definition: 'held', inputs: { name: 'r2' }, id: 'r2' } }),
    );
    await admissionIs({ active: 2, queued: 1 });
    held.release('r2');
    held.release('r0');
    const response = await waited;
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ id: 'r2', status: 'completed' });
  });

  it('refuses bad inputs at once, without waiting for a place', async () => {
    const first = [post('r0'), post('r1')];
    for (const sent of first) expect((await sent.response).status).toBe(202);
    const refused = await server.request('/runs', authed({ body: { definition: 'research', inputs: {} } }));
    expect(refused.status).toBe(400);
    expect(await admission()).toEqual({ maxActiveRuns: 2, active: 2, queued: 0 });
  });

  it('frees the place of a run refused once it was admitted (its id taken)', async () => {
    const done = post('r0');
    held.release('r0');
    expect((await done.response).status).toBe(202);
    await liveRuns(server).get('r0')?.done;
    const again = await server.request(
      '/runs',
      authed({ body: { definition: 'held', inputs: { name: 'r0' }, id: 'r0' } }),
    );
    expect(again.status).toBe(409);
    await admissionIs({ active: 0, queued: 0 });
  });

  it('answers the starts still waiting when the server closes: each run kept, unstarted, for a runner', async () => {
    const first = [post('r0'), post('r1')];
    for (const sent of first) expect((await sent.response).status).toBe(202);
    const waiting = post('r2');
    await admissionIs({ active: 2, queued: 1 });
    await server.close();
    const response = await waiting.response;
    // As any run asked for after close(): it starts, is stopped at once, and is kept for a runner.
    expect(response.status).toBe(202);
    expect(held.started).not.toContain('r2');
    expect((await temp.store.readRun('r2'))?.status).toBe('running');
  });
});

describe('maxActiveRuns', () => {
  it('refuses a bound that is not a whole number of runs from 1 (invalid_option)', () => {
    const store = temp.store;
    for (const maxActiveRuns of [0, 1.5, -1]) {
      expect(() => createServer({ store, token: TOKEN, runner: false, maxActiveRuns })).toThrowError(
        expect.objectContaining({ code: 'invalid_option' }),
      );
    }
  });
});
