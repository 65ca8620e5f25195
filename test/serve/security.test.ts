import { describe, expect, it } from 'vitest';
import { type SqliteStore, StatecrewError } from '../../src/index.js';
import { createServer, DEFAULT_BODY_LIMIT, type StatecrewServer } from '../../src/serve/index.js';
import { authed, json, researchCrew, serverPerTest, TOKEN, testServer } from './serve-helpers.js';

let store: SqliteStore;
let server: StatecrewServer;
serverPerTest((made) => {
  ({ store, server } = made);
});

const ROUTES: [string, string][] = [
  ['GET', '/definitions'],
  ['GET', '/runs'],
  ['GET', '/runs/x'],
  ['POST', '/runs'],
  ['POST', '/runs/x/resume'],
  ['POST', '/runs/x/signal'],
  ['POST', '/runs/x/abort'],
  ['GET', '/openapi.json'],
  ['GET', '/runs/x/view'],
  ['GET', '/runs/x/events'],
  ['POST', '/runs/x/agui'],
  ['GET', '/evals'],
  ['GET', '/evals/x'],
  ['GET', '/evals/x/coverage.svg'],
];

describe('the bearer token', () => {
  it('is required on every route: 401 unauthorized with WWW-Authenticate: Bearer, running nothing', async () => {
    for (const [method, path] of ROUTES) {
      const response = await server.request(path, { method, body: method === 'POST' ? '{}' : null });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect((await json(response)).error).toMatchObject({
        code: 'unauthorized',
        details: { reason: 'missing' },
      });
    }
    expect(await store.listRuns()).toEqual([]);
  });

  it('refuses a wrong token, one of another length, and another scheme', async () => {
    for (const authorization of [`Bearer ${TOKEN.slice(0, -1)}x`, 'Bearer short', `Basic ${TOKEN}`]) {
      const response = await server.request('/definitions', { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const right = await server.request('/definitions', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
  });

  it('is waived only with insecureNoAuth, and a server without either is refused', async () => {
    const open = createServer({ crews: [researchCrew()], store, runner: false, insecureNoAuth: true });
    expect((await open.request('/definitions')).status).toBe(200);
    await open.close();
    expect(() => createServer({ crews: [researchCrew()], store, runner: false })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        details: expect.objectContaining({ option: 'token' }),
      }),
    );
  });
});

describe('the options', () => {
  it('are checked: no store, an unknown option, a record key that is not the name, two definitions of one name', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ token: TOKEN }, 'store'],
      [{ store, token: TOKEN, tokn: 'x' }, 'tokn'],
      [{ store, token: TOKEN, crews: { other: researchCrew() } }, 'crews.other'],
      [{ store, token: TOKEN, crews: [researchCrew(), researchCrew()] }, 'crews[1]'],
      [{ store, token: TOKEN, bodyLimit: 0 }, 'bodyLimit'],
    ];
    for (const [options, option] of bad) {
      let thrown: unknown;
      try {
        createServer(options as unknown as Parameters<typeof createServer>[0]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, option).toBeInstanceOf(StatecrewError);
      expect((thrown as StatecrewError).code).toBe('invalid_option');
      expect((thrown as StatecrewError).message).toContain(option);
    }
  });
});

describe('the body limit', () => {
  it('answers 413 payload_too_large past the limit (1 MiB by default), starting nothing', async () => {
    const big = { definition: 'research', inputs: { topic: 'x'.repeat(DEFAULT_BODY_LIMIT) } };
    const response = await server.request('/runs', authed({ body: big }));
    expect(response.status).toBe(413);
    expect((await json(response)).error).toMatchObject({
      code: 'payload_too_large',
      details: { limit: DEFAULT_BODY_LIMIT },
    });
    expect(await store.listRuns()).toEqual([]);
  });

  it('takes its own limit', async () => {
    await server.close();
    server = testServer(store, { bodyLimit: 64 });
    const body = { definition: 'research', inputs: { topic: 'a topic long enough to pass 64 bytes in all' } };
    expect((await server.request('/runs', authed({ body }))).status).toBe(413);
  });
});

describe('CORS', () => {
  it('is off unless an origin is given: then preflights pass without a token and answers carry the origin', async () => {
    const preflight = {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    };
    const closed = await server.request('/runs', preflight);
    expect(closed.headers.get('access-control-allow-origin')).toBeNull();
    await server.close();
    server = testServer(store, { cors: 'https://app.example' });
    const open = await server.request('/runs', preflight);
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(open.headers.get('access-control-allow-headers')).toContain('Authorization');
    const get = await server.request('/definitions', authed({ headers: { origin: 'https://app.example' } }));
    expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });
});

describe('a failure inside', () => {
  it('answers 500 internal_error without its message or stack', async () => {
    const failing = () => Promise.reject(new Error('secret /etc/path at line 3'));
    const broken = new Proxy(store, {
      get(target, key) {
        if (key === 'listRuns') return failing;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await server.close();
    server = testServer(broken);
    const response = await server.request('/runs', authed());
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: expect.any(String), details: {} },
    });
    expect(text).not.toContain('secret');
    expect(text).not.toMatch(/\bat \w/);
  });

  it('answers 503 for a store that is closed', async () => {
    await store.close();
    const response = await server.request('/runs', authed());
    expect(response.status).toBe(503);
    expect((await json(response)).error?.code).toBe('store_closed');
  });
});
