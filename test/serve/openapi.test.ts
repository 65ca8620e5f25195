import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveEvalReport } from '../../src/index.js';
import { type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { sampleReport } from '../fixtures/evals/store/report.js';
import { GOOD_CLIENT, typeCheckClient, WRONG_CLIENT } from './openapi-client.js';
import { TOKEN, tempStore, testServer } from './serve-helpers.js';

// ajv-formats is CommonJS: its module is the plugin itself.
const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof import('ajv-formats').default;

interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let temp: ReturnType<typeof tempStore>;
let server: StatecrewServer;
let listening: Listening;
let document: Document;

beforeAll(async () => {
  temp = tempStore();
  server = testServer(temp.store, { shutdownGraceMs: 0 });
  listening = await listen(server, { port: 0 });
  document = (await (await call('GET', '/openapi.json')).json()) as Document;
});

afterAll(async () => {
  await server.close();
  await listening.close();
  await temp.dispose();
});

/** A request to the listening server, with the token unless `token` is false. */
function call(
  method: string,
  path: string,
  body?: unknown,
  init: { token?: boolean; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== false) headers.authorization = `Bearer ${TOKEN}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(`${listening.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: text }) });
}

/** The document's path template a request path matches: `/runs/r-1/resume` → `/runs/{id}/resume`. */
function templateOf(path: string): string | undefined {
  const bare = path.split('?')[0] ?? path;
  return Object.keys(document.paths).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(bare),
  );
}

describe('the OpenAPI document', { timeout: 120_000 }, () => {
  it('documents every route the server serves, and serves every route it documents', () => {
    const served = server.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item))
        expect(operation.operationId).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
    }
  });

  it('types a client openapi-fetch checks: the right calls compile, a wrong body does not', async () => {
    expect(await typeCheckClient(document, GOOD_CLIENT)).toEqual([]);
    const wrong = await typeCheckClient(document, WRONG_CLIENT);
    expect(wrong.join('\n')).toMatch(/client\.ts: .*number.*string/s);
  });

  it('answers every route with a status, media type and body the document gives it', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const answered = new Map<string, Set<number>>();
    const check = async (response: Response, method: string, path: string) => {
      const template = templateOf(path);
      const operation = template === undefined ? undefined : document.paths[template]?.[method.toLowerCase()];
      const where = `${method} ${path} → ${response.status}`;
      expect(operation, where).toBeDefined();
      const documented = operation?.responses[String(response.status)];
      expect(documented, where).toBeDefined();
      const key = `${method} ${template}`;
      answered.set(key, (answered.get(key) ?? new Set()).add(response.status));
      const text = await response.text();
      const media = Object.keys(documented?.content ?? {});
      if (media.length === 0) return expect(text, where).toBe('');
      const type = response.headers.get('content-type') ?? '';
      const chosen = media.find((m) => type.startsWith(m));
      expect(chosen, `${where}: ${type}`).toBeDefined();
      if (chosen !== 'application/json') return;
      const validate = ajv.compile(documented?.content?.[chosen]?.schema ?? {});
      expect(validate(JSON.parse(text)), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };
    const go = async (method: string, path: string, body?: unknown, init?: Parameters<typeof call>[3]) =>
      check(await call(method, path, body, init), method, path);

    await go('GET', '/definitions');
    await go('GET', '/definitions', undefined, { token: false });
    await go('GET', '/');
    await go('GET', '/openapi.json');
    await go('POST', '/runs/wait', { definition: 'research', inputs: { topic: 'AI' }, id: 'done' });
    await go('POST', '/runs/wait', { definition: 'review', inputs: { title: 'T' }, id: 'rev' });
    await go('POST', '/runs/wait', { definition: 'order', inputs: { item: 'tea' }, id: 'ord' });
    await go('POST', '/runs/wait', { definition: 'slow', inputs: {}, id: 'slow', timeoutMs: 0 });
    await go('POST', '/runs/wait', { definition: 'nope' });
    await go('POST', '/runs/wait', { definition: 'research', timeoutMs: -1 });
    await go(
      'POST',
      '/runs',
      { definition: 'research', inputs: { topic: 'AI' } },
      { headers: { 'idempotency-key': 'k' } },
    );
    await go(
      'POST',
      '/runs',
      { definition: 'research', inputs: { topic: 'ML' } },
      { headers: { 'idempotency-key': 'k' } },
    );
    await go('POST', '/runs', { definition: 'research', inputs: { topic: 'AI' }, id: 'done' });
    await go('POST', '/runs', { definition: 'nope' });
    await go('POST', '/runs', '{not json');
    await go('POST', '/runs', { definition: 'research', inputs: { topic: 'x'.repeat(2 * 1024 * 1024) } });
    await go('GET', '/admission');
    await go('GET', '/admission', undefined, { token: false });
    await go('GET', '/runs?limit=2');
    await go('GET', '/runs?status=sleepy');
    for (const id of ['done', 'rev', 'ord', 'slow']) await go('GET', `/runs/${id}`);
    await go('GET', '/runs/missing');
    await go('GET', `/runs/${'x'.repeat(600)}`);
    await go('GET', '/runs/done/history');
    await go('GET', '/runs/rev/history?after=1&limit=1');
    await go('GET', '/runs/done/history?limit=0');
    await go('GET', '/runs/missing/history');
    await go('GET', '/runs/done/diff/rev');
    await go('GET', '/runs/done/diff/missing');
    await go('GET', `/runs/done/diff/${'x'.repeat(600)}`);
    await go('POST', '/runs/done/fork', { at: 'research', id: 'done-fork' });
    await go('POST', '/runs/done/fork', { at: 'research' }, { headers: { 'idempotency-key': 'k' } });
    await go('POST', '/runs/done/fork', { at: 'nowhere' });
    await go('POST', '/runs/done/fork', { at: 'research', state: {} });
    await go('POST', '/runs/done/fork', { at: 'research', id: 'done' });
    await go('POST', '/runs/missing/fork', { at: 'research' });
    await go('GET', '/threads/chat-1/runs');
    await saveEvalReport(temp.store, sampleReport('eval-1'));
    await go('GET', '/evals');
    await go('GET', '/evals/eval-1');
    await go('GET', '/evals/missing');
    await go('GET', '/evals/eval-1/coverage.svg');
    await go('GET', '/evals/missing/coverage.svg');
    await go('GET', `/evals/${'x'.repeat(600)}`);
    await go('GET', '/runs/done/view');
    await go('GET', '/runs/missing/view');
    await go('GET', '/runs/done/events');
    await go('GET', '/runs/done/events?after=99999');
    await go('GET', '/runs/done/events?after=soon');
    await go('GET', '/runs/missing/events');
    for (const method of ['GET', 'POST']) {
      await go(method, '/runs/done/agui');
      await go(method, '/runs/done/agui?after=soon');
      await go(method, '/runs/missing/agui');
    }
    const answer = (interruptId: string) => ({ resume: [{ interruptId, status: 'resolved', payload: {} }] });
    await go('POST', '/runs/done/agui', answer('done:review'));
    await go('POST', '/runs/rev/agui', answer('rev:nothing-asks-this'));
    await go('POST', '/runs/done/resume', {});
    await go('POST', '/runs/missing/resume', {});
    await go('POST', '/runs/rev/resume', { route: 42 });
    await go('POST', '/runs/rev/signal', { event: 'payment.received' });
    await go('POST', '/runs/rev/resume', { route: 'yes' });
    await go('POST', '/runs/done/signal', { event: 'payment.received' });
    await go('POST', '/runs/missing/signal', { event: 'payment.received' });
    await go('POST', '/runs/ord/signal', {});
    await go('POST', '/runs/ord/signal', { event: 'payment.received', payload: { paid: 3 } });
    await go('POST', '/runs/slow/abort');
    await go('POST', '/runs/done/abort');
    await go('POST', '/runs/missing/abort');
    for (const id of liveRuns(server).ids()) await liveRuns(server).get(id)?.done;

    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...answered.keys()].sort()).toEqual([...documented].sort());
    expect(
      Object.fromEntries([...answered].map(([key, statuses]) => [key, [...statuses].sort()])),
    ).toMatchObject({
      'POST /runs': [202, 400, 404, 409, 413, 422],
      'POST /runs/wait': [200, 202, 400, 404],
      'GET /runs/{id}': [200, 400, 404],
      'GET /runs/{id}/history': [200, 400, 404],
      'GET /runs/{a}/diff/{b}': [200, 400, 404],
      'POST /runs/{id}/fork': [202, 400, 404, 409, 422],
      'GET /threads/{thread}/runs': [200],
      'GET /evals': [200],
      'GET /evals/{id}': [200, 400, 404],
      'GET /runs/{id}/events': [200, 204, 400, 404],
      'GET /runs/{id}/agui': [200, 400, 404],
      'POST /runs/{id}/agui': [200, 400, 404, 409],
      'POST /runs/{id}/resume': [202, 400, 404],
      'POST /runs/{id}/signal': [202, 400, 404, 409],
      'POST /runs/{id}/abort': [200, 404, 409],
      'GET /definitions': [200, 401],
    });
  });
});
