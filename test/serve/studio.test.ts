import { describe, expect, it } from 'vitest';
import { createFlow, type SqliteStore } from '../../src/index.js';
import { createServer, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { authed, json, refundCrew, reviewFlow, serverPerTest } from './serve-helpers.js';

let store: SqliteStore;
let server: StatecrewServer;
serverPerTest((made) => {
  ({ store, server } = made);
});

/** Starts a run over HTTP and waits until it settles or pauses. */
async function started(definition: string, inputs: Record<string, unknown> = {}): Promise<string> {
  const response = await server.request('/runs', authed({ body: { definition, inputs } }));
  expect(response.status).toBe(202);
  const { id } = (await response.json()) as { id: string };
  await liveRuns(server).get(id)?.done;
  return id;
}

/** The JSON block of run data a run page carries. */
function runData(html: string): {
  id: string;
  status: string;
  nodes: { id: string; kind: string; status: string }[];
  edges?: unknown[];
} {
  const match = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html);
  if (match === null) throw new Error('the page has no run data');
  return JSON.parse(match[1] as string);
}

describe('GET / (the studio page)', () => {
  it('is served without the token, under a strict policy, and holds no run data', async () => {
    await started('research', { topic: 'AI' });
    const response = await server.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toContain('<title>statecrew studio</title>');
    expect(html).toContain('<script type="application/json" id="run-data">{}</script>');
    // Only the page is open: what it shows needs the token.
    expect((await server.request('/runs')).status).toBe(401);
    expect((await server.request('/', { method: 'POST' })).status).toBe(401);
  });
});

describe('GET /runs/:id/view', () => {
  it("draws a crew run from its kept events: the run view's page, its tasks completed", async () => {
    const id = await started('research', { topic: 'AI' });
    const response = await server.request(`/runs/${id}/view`, authed());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'sha256-");
    const html = await response.text();
    const data = runData(html);
    expect(data).toMatchObject({ id, status: 'completed' });
    expect(data.nodes.find((node) => node.id === 'research')?.status).toBe('completed');
  });

  it('draws a paused flow with its human step paused and the steps after it waiting', async () => {
    const id = await started('review', { title: 'otters' });
    const data = runData(await (await server.request(`/runs/${id}/view`, authed())).text());
    expect(data.status).toBe('paused');
    const statuses = Object.fromEntries(data.nodes.map((node) => [node.id, node.status]));
    expect(statuses).toMatchObject({ draft: 'completed', approve: 'paused', publish: 'waiting' });
  });

  it('draws a crew paused for a tool approval', async () => {
    const id = await started('refunds');
    const data = runData(await (await server.request(`/runs/${id}/view`, authed())).text());
    expect(data.status).toBe('paused');
    expect(data.nodes.find((node) => node.id === 'refund')?.status).toBe('paused');
  });

  it('draws a run that kept no events from its stored state', async () => {
    const flow = reviewFlow();
    const run = flow.run({ inputs: { title: 'kept nothing' }, store });
    await run.result.catch(() => undefined);
    const mine = createServer({ flows: [flow], store, insecureNoAuth: true, runner: false });
    const data = runData(await (await mine.request(`/runs/${run.id}/view`)).text());
    await mine.close();
    expect(data.status).toBe('paused');
    expect(data.nodes.find((node) => node.id === 'draft')?.status).toBe('completed');
  });

  it('answers 404 run_not_found for an unknown run', async () => {
    const unknown = await server.request('/runs/nope/view', authed());
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error?.code).toBe('run_not_found');
  });

  it('draws a run of a definition this server does not serve from what the store keeps of it', async () => {
    const id = await started('research', { topic: 'AI' });
    const other = createServer({ crews: [refundCrew([])], store, token: 'other-token', runner: false });
    const response = await other.request(`/runs/${id}/view`, {
      headers: { authorization: 'Bearer other-token' },
    });
    await other.close();
    expect(response.status).toBe(200);
    const data = runData(await response.text());
    expect(data).toMatchObject({ kind: 'crew', name: 'research', status: 'completed', edges: [] });
    expect(data.nodes.map((node) => [node.id, node.status])).toEqual([['research', 'completed']]);
  });

  it('draws a flow run of a definition it does not serve with its router, and no edges', async () => {
    const sizing = createFlow({ name: 'sizing', initialState: { amount: 5 } })
      .start('check', () => 'checked')
      .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
        routes: ['small', 'large'],
      })
      .listen('note', 'small', () => 'noted');
    const out = await sizing.kickoff({ store, events: 'store' });
    const response = await server.request(`/runs/${out.id}/view`, authed());
    expect(response.status).toBe(200);
    const data = runData(await response.text());
    expect(data).toMatchObject({ kind: 'flow', name: 'sizing', status: 'completed', edges: [] });
    expect(data.nodes.map((node) => [node.id, node.kind, node.status])).toEqual([
      ['check', 'step', 'completed'],
      ['size', 'router', 'completed'],
      ['note', 'step', 'completed'],
    ]);
  });

  it('needs the token', async () => {
    const id = await started('research', { topic: 'AI' });
    expect((await server.request(`/runs/${id}/view`)).status).toBe(401);
  });
});
