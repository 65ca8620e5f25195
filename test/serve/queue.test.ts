import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { createWorker } from '../../src/queue/index.js';
import { createServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { RedisStore } from '../../src/stores/redis.js';
import {
  connection,
  dropKeys,
  exited,
  noServices,
  obliterate,
  startWorkerProcess,
} from '../executors/queue-helpers.js';
import { briefCrew } from '../fixtures/queue/kept-events.js';
import { authed, json, researchCrew, TOKEN, tempStore, testServer } from './serve-helpers.js';

const HELD_RUN_WORKER = fileURLToPath(new URL('../fixtures/queue/held-run-worker.ts', import.meta.url));

describe.skipIf(noServices)('a server with a run queue', { timeout: 60_000 }, () => {
  it('submits POST /runs to the BullMQ run queue: a worker runs it over the shared store', async () => {
    const queue = `serve-${randomUUID()}`;
    const temp = tempStore();
    const server = testServer(temp.store, { queue: { connection, queue } });
    const worker = createWorker({
      connection,
      queue,
      agents: [],
      definitions: { research: researchCrew() },
      store: temp.store,
    });
    try {
      await worker.ready;
      const response = await server.request(
        '/runs',
        authed({ body: { definition: 'research', inputs: { topic: 'AI' }, id: 'q1' } }),
      );
      expect(response.status).toBe(202);
      expect(await json(response)).toEqual({ id: 'q1', definition: 'research', kind: 'crew' });
      // Not run here: the worker runs it, and keeps it in the store the server reads.
      expect(liveRuns(server).has('q1')).toBe(false);
      for (;;) {
        const head = await temp.store.readRun('q1');
        if (head?.status === 'completed') break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const again = await server.request(
        '/runs',
        authed({ body: { definition: 'research', inputs: { topic: 'AI' }, id: 'q1' } }),
      );
      expect(again.status).toBe(409);
      expect((await json(again)).error?.code).toBe('run_exists');
    } finally {
      await server.close();
      await worker.close();
      await obliterate(queue);
      await obliterate(`${queue}-runs`);
      await temp.dispose();
    }
  });
});

describe.skipIf(noServices)('a server with a run queue and a worker process', { timeout: 60_000 }, () => {
  it('aborts a run the worker process holds: the worker aborts it, and the server answers once it is kept aborted', async () => {
    const queue = `serve-abort-${randomUUID()}`;
    const prefix = `statecrew-test-${process.pid}-${randomUUID()}`;
    const store = new RedisStore({ url: connection, prefix });
    const worker = await startWorkerProcess(HELD_RUN_WORKER, {
      QUEUE: queue,
      NAME: 'holder',
      PREFIX: prefix,
    });
    const server = createServer({
      crews: [briefCrew()],
      store,
      queue: { connection, queue },
      token: TOKEN,
      runner: false,
    });
    const detail = async () => json(await server.request('/runs/far', authed()));
    try {
      const start = { definition: 'brief', inputs: { topic: 'AI' }, id: 'far' };
      expect((await server.request('/runs', authed({ body: start }))).status).toBe(202);
      // The outline is kept and the write waits on its model: the worker holds the run.
      const running = await vi.waitFor(
        async () => {
          const run = await detail();
          expect((run.execution as { results?: unknown[] } | undefined)?.results).toHaveLength(1);
          return run;
        },
        { timeout: 30_000, interval: 20 },
      );
      // Held by a live lease of the worker's, it is running, not interrupted: both reads agree.
      expect.soft(running).toMatchObject({
        status: 'running',
        live: false,
        owner: `${hostname()}:${worker.pid}`,
        execution: { status: 'running' },
      });
      const aborted = await server.request('/runs/far/abort', authed({ method: 'POST' }));
      expect({ status: aborted.status, body: await json(aborted) }).toEqual({
        status: 200,
        body: { id: 'far', definition: 'brief', kind: 'crew', status: 'aborted' },
      });
      expect((await store.readRun('far'))?.status).toBe('aborted');
      expect(await detail()).toMatchObject({
        status: 'aborted',
        owner: null,
        execution: { status: 'aborted' },
      });
      // The worker lives on; aborting again finds nothing running.
      expect(worker.exitCode).toBeNull();
      const again = await server.request('/runs/far/abort', authed({ method: 'POST' }));
      expect(again.status).toBe(409);
      expect((await json(again)).error?.code).toBe('not_running');
    } finally {
      await server.close();
      worker.kill('SIGKILL');
      await exited(worker);
      await store.close();
      await dropKeys(prefix);
      await obliterate(queue);
      await obliterate(`${queue}-runs`);
    }
  });
});
