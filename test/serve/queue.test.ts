import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWorker } from '../../src/queue/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';
import { authed, json, researchCrew, tempStore, testServer } from './serve-helpers.js';

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
