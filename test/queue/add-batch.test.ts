import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { AddBatch } from '../../src/queue/add-batch.js';
import { createQueueExecutor, createWorker } from '../../src/queue/index.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';

type Bulk = { name: string; data: unknown; opts: unknown }[];

/**
 * A queue that only records its `addBulk` and `add` calls, an add as a batch of one in `calls` and in
 * `singles` (and fails them with `refuse`, when given).
 */
function recordingQueue(refuse?: Error) {
  const calls: Bulk[] = [];
  const singles: Bulk = [];
  const queue = {
    addBulk: async (jobs: Bulk) => {
      calls.push(jobs);
      if (refuse !== undefined) throw refuse;
      return [];
    },
    add: async (name: string, data: unknown, opts: unknown) => {
      calls.push([{ name, data, opts }]);
      singles.push({ name, data, opts });
      if (refuse !== undefined) throw refuse;
      return {};
    },
  } as unknown as Queue;
  return { queue, calls, singles };
}

describe('AddBatch', () => {
  it('sends the adds of one turn of the event loop as one addBulk, in order, and a later lone add with add', async () => {
    const { queue, calls, singles } = recordingQueue();
    const batch = new AddBatch(queue);
    await Promise.all([1, 2, 3].map((i) => batch.add('conversation', { i }, { jobId: `j${i}` })));
    await batch.add('conversation', { i: 4 }, { jobId: 'j4' });
    expect(calls.map((jobs) => jobs.map((job) => job.opts))).toEqual([
      [{ jobId: 'j1' }, { jobId: 'j2' }, { jobId: 'j3' }],
      [{ jobId: 'j4' }],
    ]);
    expect(calls[0]?.[1]).toEqual({ name: 'conversation', data: { i: 2 }, opts: { jobId: 'j2' } });
    expect(singles).toEqual([{ name: 'conversation', data: { i: 4 }, opts: { jobId: 'j4' } }]);
  });

  it('splits a turn of more than 500 adds into batches of at most 500', async () => {
    const { queue, calls } = recordingQueue();
    const batch = new AddBatch(queue);
    await Promise.all(Array.from({ length: 1200 }, (_, i) => batch.add('c', i, {})));
    expect(calls.map((jobs) => jobs.length)).toEqual([500, 500, 200]);
  });

  it('drop takes a waiting job out of its batch, and is false once the batch went', async () => {
    const { queue, calls } = recordingQueue();
    const batch = new AddBatch(queue);
    const adds = [batch.add('c', 1, { jobId: 'j1' }), batch.add('c', 2, { jobId: 'j2' })];
    expect(batch.drop('j1')).toBe(true);
    await Promise.all(adds);
    expect(calls.map((jobs) => jobs.map((job) => job.opts))).toEqual([[{ jobId: 'j2' }]]);
    expect(batch.drop('j2')).toBe(false);
  });

  it('rejects every add of a batch Redis refused with its error', async () => {
    const refused = new Error('connection lost');
    const batch = new AddBatch(recordingQueue(refused).queue);
    const settled = await Promise.allSettled([batch.add('c', 1, {}), batch.add('c', 2, {})]);
    expect(settled).toEqual([
      { status: 'rejected', reason: refused },
      { status: 'rejected', reason: refused },
    ]);
  });

  it('rejects a lone add Redis refused with its error', async () => {
    const refused = new Error('connection lost');
    const batch = new AddBatch(recordingQueue(refused).queue);
    await expect(batch.add('c', 1, { jobId: 'j1' })).rejects.toBe(refused);
  });
});

if (noServices)
  console.log('Queue add batch tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

describe.skipIf(noServices)('the queue executor adds the attempts of one turn together', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a parallel crew of 40 tasks reaches the queue in at most two addBulks (no add) and every task completes', async () => {
    const queue = `add-batch-${randomUUID()}`;
    const agent = new Agent({ role: 'Worker', llm: () => 'done' });
    const worker = createWorker({ connection, queue, agents: [agent], name: 'w1' });
    await worker.ready;
    const executor = createQueueExecutor({ connection, queue });
    const bulk = vi.spyOn(Queue.prototype, 'addBulk');
    const add = vi.spyOn(Queue.prototype, 'add');
    try {
      const tasks = Array.from(
        { length: 40 },
        (_, i) => new Task({ name: `t${i}`, description: `task ${i}`, agent }),
      );
      const out = await new Crew({ tasks, process: 'parallel', maxConcurrency: 40, executor }).kickoff();
      expect(out.status).toBe('completed');
      expect(out.nodes.filter((node) => node.status === 'completed')).toHaveLength(40);
      expect(add).not.toHaveBeenCalled();
      // Its scheduler yields to the event loop every 32 operations: its starts may span two turns.
      const sizes = bulk.mock.calls.map(([jobs]) => jobs.length);
      expect(sizes.length).toBeLessThanOrEqual(2);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(40);
    } finally {
      await executor.close();
      await worker.close();
      await obliterate(queue);
    }
  });
});
