import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, fixture, type Running, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-agui-race-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TOKEN = 'cli-agui-race-token';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Starts `statecrew serve` of the refund flow on `store`; resolves with it and its URL. */
async function serve(store: string): Promise<{ server: Running; url: string }> {
  const server = start(
    ['serve', fixture('refund-flow.ts'), '--port', '0', '--store', store, '--token', TOKEN],
    { cwd },
  );
  await server.whenPrinted('openapi.json');
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
  if (url === undefined) throw new Error(`no URL in: ${server.output()}`);
  return { server, url };
}

interface RunView {
  status: string;
  live: boolean;
  flow: { trail: string[] };
}

/** Reads run `id` from `url` until no process runs it any more. */
async function settled(url: string, id: string): Promise<RunView> {
  for (;;) {
    const run = (await (await fetch(`${url}/runs/${id}`, { headers })).json()) as RunView;
    if (run.status !== 'running') return run;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** What an answer came to: its HTTP status and, refused, its error code. */
interface Answer {
  status: number | undefined;
  code: string | undefined;
}

/** Answers run `id` through AG-UI's resume on `url`, approving it. */
function aguiApproves(url: string, id: string): Promise<Answer> {
  const agent = new HttpAgent({ url: `${url}/runs/${id}/agui`, headers });
  const resume = [
    { interruptId: `${id}:approval`, status: 'resolved' as const, payload: { route: 'approved' } },
  ];
  return agent.runAgent({ resume }).then(
    () => ({ status: 200, code: undefined }),
    (error: { status?: number; payload?: { error?: { code?: string } } }) => ({
      status: error.status,
      code: error.payload?.error?.code,
    }),
  );
}

/** Answers run `id` through `POST /runs/:id/resume` on `url`, rejecting it. */
async function restRejects(url: string, id: string): Promise<Answer> {
  const response = await fetch(`${url}/runs/${id}/resume`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ route: 'rejected' }),
  });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code };
}

describe('two statecrew serve processes on one SQLite store', { timeout: CLI_TIMEOUT }, () => {
  it('take one interrupt answered at once through AG-UI on one and REST on the other: one goes on, the other gets 409', async () => {
    const store = `sqlite:${join(cwd, 'shared.db')}`;
    const a = await serve(store);
    const b = await serve(store);
    try {
      for (const id of ['big1', 'big2', 'big3']) {
        const posted = await fetch(`${a.url}/runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ definition: 'refunds', inputs: { amount: 500 }, id }),
        });
        expect(posted.status).toBe(202);
        expect((await settled(b.url, id)).status).toBe('paused');
        const [viaAgui, viaRest] = await Promise.all([aguiApproves(a.url, id), restRejects(b.url, id)]);
        const won = [viaAgui, viaRest].filter((r) => r.status === 200 || r.status === 202);
        const lost = [viaAgui, viaRest].filter((r) => r.status !== 200 && r.status !== 202);
        expect(won).toHaveLength(1);
        expect(lost).toEqual([{ status: 409, code: expect.stringMatching(/^(not_paused|run_locked)$/) }]);
        const run = await settled(a.url, id);
        expect(run.status).toBe('completed');
        const last = viaAgui.status === 200 ? 'pay' : 'decline';
        expect(run.flow.trail).toEqual(['check', 'size', 'approval', last]);
      }
    } finally {
      a.server.child.kill('SIGKILL');
      b.server.child.kill('SIGKILL');
    }
  });
});
