import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { createRunQueue, createWorker } from '../../src/queue/index.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';
import { Gate, heldFlow } from '../fixtures/durable/held.js';

if (noServices)
  console.log('Worker graceful stop tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

let queues: string[] = [];
afterEach(async () => {
  for (const queue of queues) {
    await obliterate(queue);
    await obliterate(`${queue}-runs`);
  }
  queues = [];
});

describe.skipIf(noServices)('a worker closing gracefully', { timeout: 60_000 }, () => {
  it('lets the step in flight commit, keeps the run running with no lease and puts its job back: the next worker finishes it', async () => {
    const queue = `graceful-stop-${randomUUID()}`;
    queues.push(queue);
    const store = new MemoryStore();
    const gate = new Gate();
    const ran = new Map<string, number>();
    const held = heldFlow(store, gate, ran);
    const options = { connection, queue, store, recover: false };
    const first = createWorker({ ...options, definitions: { held } });
    await first.ready;
    const runs = createRunQueue({ connection, queue });
    try {
      const { id, result } = await runs.submitRun('held', {}, { id: 'q1' });
      await gate.whenReached(1);
      const closed = first.close();
      gate.open();
      await closed;
      expect(await store.readRun(id)).toMatchObject({ status: 'running', lease: null });
      expect([...ran]).toEqual([['s1', 1]]);

      const second = createWorker({ ...options, definitions: { held: heldFlow(store, gate, ran) } });
      try {
        expect(await result).toMatchObject({ id, status: 'completed' });
      } finally {
        await second.close();
      }
      expect(await store.readRun(id)).toMatchObject({ status: 'completed', lease: null });
      expect([...ran]).toEqual([
        ['s1', 1],
        ['s2', 1],
        ['s3', 1],
      ]);
    } finally {
      await runs.close();
    }
  });
});
