import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropKeys, noServices, obliterate } from '../executors/queue-helpers.js';
import { CLI_TIMEOUT, cli, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-serve-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TOKEN = 'cli-serve-token';

/** Waits until `read` gives something other than `running`, asking again after each answer. */
async function settled(read: () => Promise<{ status: string; live: boolean }>) {
  for (;;) {
    const run = await read();
    if (!run.live && run.status !== 'running') return run;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe('statecrew serve', { timeout: CLI_TIMEOUT }, () => {
  it('serves a module’s flows on a free port with a token: posts a run, resumes it, reads it back; SIGTERM exits 0', async () => {
    const store = `sqlite:${join(cwd, 'serve.db')}`;
    const server = start(
      ['serve', fixture('refund-flow.ts'), '--port', '0', '--store', store, '--token', TOKEN],
      {
        cwd,
      },
    );
    try {
      await server.whenPrinted('openapi.json');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
      expect(url).toBeDefined();
      expect(url).not.toMatch(/:0$/);
      expect(server.output()).toContain('Authorization: Bearer <token>');
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const read = async () =>
        (await (await fetch(`${url}/runs/big`, { headers })).json()) as {
          status: string;
          live: boolean;
          pending: { step: string }[];
          flow: { trail: string[] };
        };
      const posted = await fetch(`${url}/runs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ definition: 'refunds', inputs: { amount: 500 }, id: 'big' }),
      });
      expect(posted.status).toBe(202);
      expect(await posted.json()).toEqual({ id: 'big', definition: 'refunds', kind: 'flow' });
      const paused = await settled(read);
      expect(paused).toMatchObject({ status: 'paused', pending: [{ step: 'approval' }] });
      const resumed = await fetch(`${url}/runs/big/resume`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ route: 'approved' }),
      });
      expect(resumed.status).toBe(202);
      const done = await settled(read);
      expect(done).toMatchObject({
        status: 'completed',
        flow: { trail: ['check', 'size', 'approval', 'pay'] },
      });
      expect((await fetch(`${url}/runs`)).status).toBe(401);
      server.child.kill('SIGTERM');
      const ended = await server.done;
      expect(ended.code).toBe(0);
      expect(ended.stdout).toContain('statecrew serve: stopping');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('refuses to start without a token, and without one on a host other than 127.0.0.1', async () => {
    const env = { STATECREW_TOKEN: '' };
    const none = await cli(['serve', fixture('refund-flow.ts'), '--port', '0', '--store', 'memory'], {
      cwd,
      env,
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('needs a bearer token');
    const wide = await cli(
      [
        'serve',
        fixture('refund-flow.ts'),
        '--port',
        '0',
        '--store',
        'memory',
        '--insecure-no-auth',
        '--host',
        '0.0.0.0',
      ],
      { cwd, env },
    );
    expect(wide.code).toBe(1);
    expect(wide.stderr).toContain('--insecure-no-auth serves 127.0.0.1 only');
  });
});

describe.skipIf(noServices)('statecrew serve --queue with statecrew worker', { timeout: CLI_TIMEOUT }, () => {
  it('aborts a run the worker holds: POST /runs/:id/abort asks that worker, the run reads running, then aborted', async () => {
    const queue = `cli-serve-${randomUUID()}`;
    const prefix = `statecrew-cli-serve-${process.pid}-${randomUUID()}`;
    const store = `redis://127.0.0.1:6379?prefix=${prefix}`;
    // The worker's `write` waits on its model until the run is aborted.
    const worker = start(
      ['worker', fixture('crew.ts'), '--queue', queue, '--name', 'holder', '--store', store],
      { cwd, env: { HANG_AT: 'write' } },
    );
    const server = start(
      [
        'serve',
        fixture('crew.ts'),
        ...['--port', '0', '--store', store, '--token', TOKEN, '--no-runner'],
        ...['--queue', `redis://127.0.0.1:6379?queue=${queue}`],
      ],
      { cwd },
    );
    try {
      await Promise.all([worker.whenPrinted('ready'), server.whenPrinted('openapi.json')]);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? '';
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const call = async (path: string, body?: unknown) => {
        const init =
          body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) };
        const response = await fetch(`${url}${path}`, init);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const posted = await call('/runs', { definition: 'research', inputs: { topic: 'queues' }, id: 'far' });
      expect(posted).toEqual({ status: 202, body: { id: 'far', definition: 'research', kind: 'crew' } });
      await worker.whenPrinted('(waiting in write');
      // Held by the worker's live lease: running, not interrupted, in both reads.
      expect.soft((await call('/runs/far')).body).toMatchObject({
        status: 'running',
        live: false,
        owner: `${hostname()}:${worker.child.pid}`,
        execution: { status: 'running', results: [{ name: 'research', status: 'completed' }] },
      });
      expect(await call('/runs/far/abort', {})).toEqual({
        status: 200,
        body: { id: 'far', definition: 'research', kind: 'crew', status: 'aborted' },
      });
      expect((await call('/runs/far')).body).toMatchObject({
        status: 'aborted',
        owner: null,
        execution: { status: 'aborted' },
      });
      server.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
      expect((await server.done).code).toBe(0);
      expect((await worker.done).code).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
      worker.child.kill('SIGKILL');
      await Promise.all([server.done, worker.done]);
      await obliterate(queue);
      await obliterate(`${queue}-runs`);
      await dropKeys(prefix);
    }
  });
});
