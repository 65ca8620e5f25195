import { describe, expect, it } from 'vitest';
import { saveEvalReport } from '../../src/evals/report-store.js';
import type { EvalReport } from '../../src/evals/types.js';
import type { SqliteStore } from '../../src/index.js';
import type { StatecrewServer } from '../../src/serve/index.js';
import { authed, json, serverPerTest } from './serve-helpers.js';

let server: StatecrewServer;
let store: SqliteStore;
serverPerTest((made) => {
  ({ server, store } = made);
});

const covered = (names: string[], uncovered: string[]) => ({
  covered: names,
  uncovered,
  ratio: names.length / Math.max(1, names.length + uncovered.length),
});
const noUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0 };

/** A report on the served `review` flow whose one case was approved: the `no` route never taken. */
function reviewReport(id: string, target = 'review'): EvalReport {
  return {
    format: 1,
    id,
    target: { kind: 'flow', name: target },
    startedAt: '2026-12-01T10:00:00.000Z',
    iterations: 1,
    scorers: [{ name: 'published', level: 'run' }],
    cases: [],
    summary: {
      cases: 1,
      runs: 1,
      statuses: { completed: 1, failed: 0, partial: 0, paused: 0, error: 0 },
      scorers: { published: { mean: 1, min: 1, max: 1, count: 1, errors: 0 } },
      usage: { ...noUsage, judge: noUsage },
      timeMs: { p50: 5, p95: 5, mean: 5, total: 5 },
    },
    coverage: {
      kind: 'flow',
      paths: { ...covered(['draft → approve → publish'], ['draft → approve → discard']), total: 2 },
      routes: covered(['approve=yes'], ['approve=no']),
      failureHandlers: covered([], []),
      timeouts: covered([], []),
      nodes: covered(['draft', 'approve', 'publish'], ['discard']),
      edges: [
        { from: 'draft', to: 'approve', taken: 1 },
        { from: 'approve', to: 'publish', label: 'yes', taken: 1 },
        { from: 'approve', to: 'discard', label: 'no', taken: 0 },
      ],
      truncated: false,
    },
  };
}

describe('GET /evals/:id/coverage.svg', () => {
  it("draws the report's target with the edges and steps no run took marked untaken", async () => {
    await saveEvalReport(store, reviewReport('rep-1'));
    const res = await server.request('/evals/rep-1/coverage.svg', authed());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const svg = await res.text();
    expect(svg.startsWith('<svg class="coverage-graph"')).toBe(true);
    const untaken = [
      ...svg.matchAll(/<g class="(coverage-edge|coverage-node) untaken[^"]*"( data-[a-z]+="[^"]*")+/g),
    ].map((m) => m[0].replace(/^<g class="([a-z-]+) untaken[^"]*"/, '$1'));
    expect(untaken).toEqual([
      'coverage-edge data-from="approve" data-to="discard" data-label="no" data-taken="0"',
      'coverage-node data-node="discard"',
    ]);
    expect(svg).toContain('approve → discard (no): never taken by the dataset');
  });

  it('answers 404 eval_not_found for a report the store does not keep', async () => {
    const res = await server.request('/evals/nothing-here/coverage.svg', authed());
    expect(res.status).toBe(404);
    expect((await json(res)).error?.code).toBe('eval_not_found');
  });

  it('answers 404 unknown_definition when the report names a target this server does not serve', async () => {
    await saveEvalReport(store, reviewReport('rep-2', 'gone'));
    const res = await server.request('/evals/rep-2/coverage.svg', authed());
    expect(res.status).toBe(404);
    expect((await json(res)).error?.code).toBe('unknown_definition');
  });

  it('needs the token', async () => {
    await saveEvalReport(store, reviewReport('rep-3'));
    const res = await server.request('/evals/rep-3/coverage.svg');
    expect(res.status).toBe(401);
    expect((await json(res)).error?.code).toBe('unauthorized');
  });
});
