import { describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/index.js';
import type { StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { authed, json, serverPerTest, TOKEN } from './serve-helpers.js';

let store: SqliteStore;
let server: StatecrewServer;
serverPerTest((made) => {
  ({ store, server } = made);
});

/** Starts a run over HTTP and waits until this process no longer runs it. */
async function startAndSettle(body: unknown): Promise<Record<string, unknown>> {
  const response = await server.request('/runs', authed({ body }));
  const started = await json(response);
  expect(response.status, JSON.stringify(started)).toBe(202);
  await liveRuns(server).get(started.id as string)?.done;
  return started;
}

describe('POST /runs', { timeout: 30_000 }, () => {
  it('starts a durable crew run under the id given, answers 202 once it holds its id, and keeps it', async () => {
    const started = await startAndSettle({ definition: 'research', inputs: { topic: 'AI' }, id: 'r-1' });
    expect(started).toEqual({ id: 'r-1', definition: 'research', kind: 'crew' });
    const head = await store.readRun('r-1');
    expect(head).toMatchObject({ kind: 'crew', name: 'research', status: 'completed' });
  });

  it('starts a flow run with a new id when none is given', async () => {
    const started = await startAndSettle({ definition: 'order', inputs: { item: 'lamp' } });
    expect(started.kind).toBe('flow');
    expect(typeof started.id).toBe('string');
    expect((await store.readRun(started.id as string))?.status).toBe('paused');
  });

  it('answers 404 unknown_definition for a name no served definition has, naming those it has', async () => {
    const response = await server.request('/runs', authed({ body: { definition: 'nope', inputs: {} } }));
    expect(response.status).toBe(404);
    const { error } = await json(response);
    expect(error?.code).toBe('unknown_definition');
    expect(error?.message).toContain('This server holds no crew or flow named "nope"');
    expect(error?.details.known).toEqual(['research', 'refunds', 'slow', 'review', 'order']);
  });

  it('answers 409 for an id already used, running nothing', async () => {
    await startAndSettle({ definition: 'research', inputs: { topic: 'AI' }, id: 'taken' });
    const again = await server.request(
      '/runs',
      authed({ body: { definition: 'review', inputs: { title: 'x' }, id: 'taken' } }),
    );
    expect(again.status).toBe(409);
    expect((await json(again)).error?.code).toBe('run_exists');
    expect((await store.readRun('taken'))?.name).toBe('research');
  });

  it('answers 400 invalid_request naming each field that does not fit', async () => {
    const cases: [unknown, string][] = [
      [{ inputs: {} }, 'body.definition'],
      [{ definition: 'research', inputs: [] }, 'body.inputs'],
      [{ definition: 'research', inputs: {}, id: '' }, 'body.id'],
      [{ definition: 'research', inputs: {}, extra: 1 }, 'body'],
      [{ definition: 'research', inputs: {} }, 'body.inputs.topic'],
      [{ definition: 'research', inputs: { topic: 7 } }, 'body.inputs.topic'],
    ];
    for (const [body, field] of cases) {
      const response = await server.request('/runs', authed({ body }));
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = await json(response);
      expect(error?.code).toBe('invalid_request');
      const paths = ((error?.details.issues ?? []) as { path: string }[]).map((i) => i.path);
      expect(paths, JSON.stringify(body)).toContain(field);
      expect(error?.message).toContain(field);
    }
    expect(await store.listRuns()).toEqual([]);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await server.request('/runs', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({
      code: 'invalid_request',
      details: { route: 'POST /runs' },
    });
  });

  it('answers 400 invalid_inputs when a flow run’s inputs do not fit its state schema', async () => {
    const response = await server.request(
      '/runs',
      authed({ body: { definition: 'order', inputs: { item: 3 } } }),
    );
    expect(response.status).toBe(400);
    expect((await json(response)).error?.code).toBe('invalid_inputs');
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('GET /runs', { timeout: 30_000 }, () => {
  it('lists the stored runs newest first, a page at a time, through an opaque cursor', async () => {
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      await startAndSettle({ definition: 'research', inputs: { topic: 'AI' }, id });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page = await json(await server.request(`/runs${query}`, authed()));
      const runs = page.runs as { id: string; definition: string; status: string; createdAt: string }[];
      expect(runs.length).toBeLessThanOrEqual(2);
      seen.push(...runs.map((r) => r.id));
      cursor = page.nextCursor as string | null;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    const heads = await store.listRuns();
    const newest = [...heads]
      .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1))
      .map((h) => h.id);
    expect(seen).toEqual(newest);
  });

  it('filters by status and by definition', async () => {
    await startAndSettle({ definition: 'research', inputs: { topic: 'AI' }, id: 'done-1' });
    await startAndSettle({ definition: 'review', inputs: { title: 'T' }, id: 'paused-1' });
    const paused = await json(await server.request('/runs?status=paused', authed()));
    expect((paused.runs as { id: string }[]).map((r) => r.id)).toEqual(['paused-1']);
    const ofResearch = await json(await server.request('/runs?definition=research', authed()));
    expect(ofResearch.runs).toEqual([
      expect.objectContaining({
        id: 'done-1',
        definition: 'research',
        kind: 'crew',
        status: 'completed',
        owner: null,
      }),
    ]);
    expect(ofResearch.nextCursor).toBeNull();
  });

  it('filters by creation time, asking the store for one page rather than every head, and pages stably while runs are inserted', async () => {
    const t = Date.parse('2026-01-01T00:00:00Z');
    const make = (id: string, ms: number, name = 'research') =>
      store.createRun({
        id,
        kind: 'crew',
        name,
        status: 'completed',
        version: 1,
        lease: null,
        data: {},
        createdAt: ms,
        updatedAt: ms,
      });
    for (let i = 0; i < 30; i++) await make(`old-${String(i).padStart(2, '0')}`, t + i * 1000);
    const returned: number[] = [];
    const listRuns = store.listRuns.bind(store);
    store.listRuns = async (filter) => {
      const heads = await listRuns(filter);
      returned.push(heads.length);
      return heads;
    };
    const range = `createdFrom=${encodeURIComponent(new Date(t + 10_000).toISOString())}&createdBefore=${encodeURIComponent(new Date(t + 20_000).toISOString())}`;
    const first = await json(await server.request(`/runs?${range}&limit=3`, authed()));
    expect((first.runs as { id: string }[]).map((r) => r.id)).toEqual(['old-19', 'old-18', 'old-17']);
    expect(returned).toEqual([4]);
    // Inserted between two pages: one newer than the cursor's run, one older, inside the range.
    await make('new-late', t + 19_500);
    await make('new-early', t + 15_500);
    const cursor = encodeURIComponent(first.nextCursor as string);
    const second = await json(await server.request(`/runs?${range}&limit=3&cursor=${cursor}`, authed()));
    expect((second.runs as { id: string }[]).map((r) => r.id)).toEqual(['old-16', 'new-early', 'old-15']);
    const ofOther = await json(await server.request(`/runs?definition=review&${range}`, authed()));
    expect(ofOther).toEqual({ runs: [], nextCursor: null });
  });

  it('answers 400 naming the query field for a bad status, limit or cursor', async () => {
    for (const [query, field] of [
      ['status=sleepy', 'query.status'],
      ['limit=0', 'query.limit'],
      ['limit=many', 'query.limit'],
      ['cursor=not-a-cursor', 'query.cursor'],
      ['createdFrom=yesterday', 'query.createdFrom'],
    ]) {
      const response = await server.request(`/runs?${query}`, authed());
      expect(response.status, query).toBe(400);
      const { error } = await json(response);
      expect(error?.code).toBe('invalid_request');
      expect(error?.message).toContain(field);
    }
  });
});

describe('GET /runs/:id', { timeout: 30_000 }, () => {
  it('gives a crew run’s head, inputs and stored execution document', async () => {
    await startAndSettle({ definition: 'research', inputs: { topic: 'AI' }, id: 'crew-1' });
    const run = await json(await server.request('/runs/crew-1', authed()));
    expect(run).toMatchObject({
      id: 'crew-1',
      definition: 'research',
      kind: 'crew',
      status: 'completed',
      live: false,
      inputs: { topic: 'AI' },
      pending: [],
    });
    expect(run.execution).toMatchObject({ executionId: 'crew-1', crew: 'research', status: 'completed' });
    expect(typeof run.createdAt).toBe('string');
    expect(Number.isNaN(Date.parse(run.updatedAt as string))).toBe(false);
  });

  it('gives a paused flow run’s state, trail and the human step it waits for', async () => {
    await startAndSettle({ definition: 'review', inputs: { title: 'Spring' }, id: 'flow-1' });
    const run = await json(await server.request('/runs/flow-1', authed()));
    expect(run).toMatchObject({ id: 'flow-1', kind: 'flow', status: 'paused', inputs: { title: 'Spring' } });
    expect(run.flow).toMatchObject({ trail: ['draft'], state: { title: 'Spring' }, status: 'paused' });
    expect(run.pending).toEqual([
      expect.objectContaining({
        step: 'approve',
        kind: 'human',
        routes: ['yes', 'no'],
        prompt: 'Publish it?',
      }),
    ]);
  });

  it('answers 404 run_not_found for an id the store does not hold', async () => {
    const response = await server.request('/runs/ghost', authed());
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({
      code: 'run_not_found',
      details: { executionId: 'ghost' },
    });
  });

  it('answers 404 unknown_endpoint as JSON for a path it does not serve', async () => {
    const response = await server.request('/nowhere', authed());
    expect(response.status).toBe(404);
    expect((await json(response)).error?.code).toBe('unknown_endpoint');
  });
});
