import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-second-copy-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TOKEN = 'second-copy-token';

/** What the server answered: the status, and the error's code when it is one. */
interface Answer {
  status: number;
  code: string | undefined;
}

describe('statecrew serve on definitions of a second copy of statecrew', { timeout: CLI_TIMEOUT }, () => {
  it('answers each refusal their runs throw with its own status and code, never 500', async () => {
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const server = start(
      ['serve', fixture('second-copy.ts'), '--port', '0', '--store', store, '--token', TOKEN],
      { cwd },
    );
    try {
      await server.whenPrinted('openapi.json');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? '';
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const post = async (path: string, body: unknown): Promise<Answer> => {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        });
        const json = (await response.json()) as { error?: { code: string } };
        return { status: response.status, code: json.error?.code };
      };
      /** Waits until run `id` is no longer running here, asking again after each answer. */
      const settled = async (id: string) => {
        for (;;) {
          const run = (await (await fetch(`${url}/runs/${id}`, { headers })).json()) as {
            status: string;
            live: boolean;
          };
          if (!run.live && run.status !== 'running') return run.status;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      };

      const review = { definition: 'review', inputs: { title: 'T' }, id: 'r1' };
      expect(await post('/runs', review)).toEqual({ status: 202, code: undefined });
      expect(await settled('r1')).toBe('paused');
      expect
        .soft(await post('/runs', review), 'the same id again')
        .toEqual({ status: 409, code: 'run_exists' });
      expect
        .soft(await post('/runs/r1/resume', { route: 'maybe' }), 'an unknown route')
        .toEqual({ status: 400, code: 'unknown_route' });
      expect(await post('/runs/r1/resume', { route: 'yes' })).toEqual({ status: 202, code: undefined });
      expect(await settled('r1')).toBe('completed');
      expect
        .soft(await post('/runs/r1/resume', { route: 'yes' }), 'a second answer')
        .toEqual({ status: 409, code: 'not_paused' });
      expect
        .soft(
          await post('/runs', { definition: 'research', inputs: { topic: 'x' }, id: 'r1' }),
          "a crew on a flow's id",
        )
        .toEqual({ status: 409, code: 'run_exists' });

      expect(await post('/runs', { definition: 'order', inputs: { item: 'lamp' }, id: 'o1' })).toMatchObject({
        status: 202,
      });
      expect(await settled('o1')).toBe('paused');
      expect(await post('/runs/o1/signal', { event: 'payment.received' })).toMatchObject({ status: 202 });
      expect(await settled('o1')).toBe('completed');
      expect
        .soft(await post('/runs/o1/signal', { event: 'payment.received' }), 'a signal to a finished run')
        .toEqual({ status: 409, code: 'no_waiter' });

      server.child.kill('SIGTERM');
      expect((await server.done).code).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('statecrew run on a crew of a second copy of statecrew', { timeout: CLI_TIMEOUT }, () => {
  it('stops on Ctrl-C as for its own: the run kept as aborted, how to go on, exit code 130', async () => {
    const store = `sqlite:${join(cwd, 'run.db')}`;
    const running = start(['run', fixture('second-copy.ts'), '--export', 'slow', '--store', store], { cwd });
    try {
      await running.whenPrinted('(waiting for the model)');
      running.child.kill('SIGINT');
      const ran = await running.done;
      const id = /run ([0-9a-f-]{36}) started/.exec(ran.stdout)?.[1] ?? '';
      expect(ran.stderr).toContain(`statecrew: run ${id} aborted: interrupted by SIGINT (Ctrl-C) (aborted)`);
      expect(ran.stderr).toContain(`go on with: statecrew resume ${id}`);
      expect(ran.code).toBe(130);
    } finally {
      running.child.kill('SIGKILL');
    }
  });
});
