import { describe, expect, it } from 'vitest';
import { type SqliteStore, saveEvalReport } from '../../src/index.js';
import type { StatecrewServer } from '../../src/serve/index.js';
import { sampleReport } from '../fixtures/evals/store/report.js';
import { authed, json, serverPerTest } from './serve-helpers.js';

let store: SqliteStore;
let server: StatecrewServer;
serverPerTest((made) => {
  ({ store, server } = made);
});

describe('GET /evals', () => {
  it("answers 200 with the heads of the reports in the server's store, newest first", async () => {
    await saveEvalReport(store, sampleReport('eval-old', '2026-11-01T00:00:00.000Z'));
    await saveEvalReport(store, sampleReport('eval-new', '2026-12-01T00:00:00.000Z'));
    const response = await server.request('/evals', authed());
    expect(response.status).toBe(200);
    const body = (await json(response)) as { reports: { id: string; means: Record<string, number> }[] };
    expect(body.reports.map((head) => head.id)).toEqual(['eval-new', 'eval-old']);
    expect(body.reports[0]?.means).toEqual({ exact: 0.5 });
  });

  it('answers 200 with no reports for a store that keeps none', async () => {
    const response = await server.request('/evals', authed());
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ reports: [] });
  });
});

describe('GET /evals/:id', () => {
  it('answers 200 with the whole report', async () => {
    await saveEvalReport(store, sampleReport('eval-1'));
    const response = await server.request('/evals/eval-1', authed());
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ report: sampleReport('eval-1') });
  });

  it('answers 404 eval_not_found for an id the store keeps no report under', async () => {
    const response = await server.request('/evals/missing', authed());
    expect(response.status).toBe(404);
    expect((await json(response)).error).toMatchObject({
      code: 'eval_not_found',
      details: { id: 'missing' },
    });
  });

  it('answers 400 invalid_request for an id no store keeps (over 512 characters)', async () => {
    const response = await server.request(`/evals/${'x'.repeat(600)}`, authed());
    expect(response.status).toBe(400);
    expect((await json(response)).error?.code).toBe('invalid_request');
  });
});

describe('the evals routes without the token', () => {
  it('answer 401 unauthorized and tell nothing of the reports', async () => {
    await saveEvalReport(store, sampleReport('eval-1'));
    for (const path of ['/evals', '/evals/eval-1']) {
      const response = await server.request(path);
      expect(response.status, path).toBe(401);
      const body = await json(response);
      expect(body.error?.code).toBe('unauthorized');
      expect(JSON.stringify(body)).not.toContain('research');
    }
  });
});
