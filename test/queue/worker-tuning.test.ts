import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Agent, Crew, StatecrewError, Task } from '../../src/index.js';
import { createQueueExecutor, createWorker, type WorkerOptions } from '../../src/queue/index.js';
import { connection, keyTtls, noServices, obliterate } from '../executors/queue-helpers.js';

if (noServices)
  console.log('Worker lock tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

/** The error `createWorker(options)` throws (it throws before connecting). */
function refusal(options: Partial<WorkerOptions>): unknown {
  try {
    // Nothing listens there: a worker made by mistake would fail to connect, not take jobs.
    const worker = createWorker({
      connection: 'redis://127.0.0.1:1',
      connectTimeoutMs: 200,
      agents: [],
      ...options,
    });
    void worker.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createWorker tuning options', () => {
  it.each([
    ['lockDurationMs', 999, 'a whole number of ms ≥ 1000', 'number 999'],
    ['lockDurationMs', 1500.5, 'a whole number of ms ≥ 1000', 'number 1500.5'],
    ['lockDurationMs', '5000', 'a whole number of ms ≥ 1000', '"5000"'],
    ['lockDurationMs', Number.NaN, 'a whole number of ms ≥ 1000', 'number NaN'],
    ['stalledIntervalMs', 0, 'a whole number of ms ≥ 100', 'number 0'],
    ['stalledIntervalMs', 99, 'a whole number of ms ≥ 100', 'number 99'],
    ['stalledIntervalMs', Number.POSITIVE_INFINITY, 'a whole number of ms ≥ 100', 'number Infinity'],
    ['concurrency', 0, 'a whole number ≥ 1', 'number 0'],
    ['concurrency', 2.5, 'a whole number ≥ 1', 'number 2.5'],
  ])('refuses %s %s with invalid_option naming it, before connecting', (option, value, expected, got) => {
    const error = refusal({ [option]: value });
    expect(error).toBeInstanceOf(StatecrewError);
    expect(error).toMatchObject({
      code: 'invalid_option',
      details: { where: 'createWorker', option, expected },
    });
    expect((error as Error).message).toBe(
      `createWorker: option "${option}" must be ${expected}, got ${got} (invalid_option)`,
    );
  });

  it('takes the shortest lock and stalled-check interval it allows', () => {
    expect(refusal({ lockDurationMs: 1000, stalledIntervalMs: 100, concurrency: 1 })).toBeUndefined();
  });
});

describe.skipIf(noServices)('a worker’s job locks', { timeout: 60_000 }, () => {
  it('without options: a 5 s lock, and a look for stalled jobs every 2 s', async () => {
    const queue = `tuning-${randomUUID()}`;
    const redis = new Redis(connection);
    const gate = gated();
    const worker = createWorker({ connection, queue, agents: [gate.agent] });
    const executor = createQueueExecutor({ connection, queue });
    try {
      await worker.ready;
      const checks = await keyTtls(redis, async () => [`bull:${queue}:stalled-check`], 5);
      expect(Math.max(...checks)).toBeLessThanOrEqual(2000);
      const out = oneTask(executor).kickoff();
      const locks = await keyTtls(redis, () => redis.keys(`bull:${queue}:*:lock`), 5);
      expect(Math.max(...locks)).toBeLessThanOrEqual(5000);
      gate.open();
      expect((await out).raw).toBe('done');
    } finally {
      gate.open();
      await Promise.all([executor.close(), worker.close()]);
      redis.disconnect();
      await obliterate(queue);
    }
  });

  it('renews the lock of a call that outlasts it: the job is never taken for stalled, the call runs once', async () => {
    const queue = `tuning-${randomUUID()}`;
    const redis = new Redis(connection);
    const events = new QueueEvents(queue, { connection: { host: '127.0.0.1', port: 6379 } });
    let stalled = 0;
    events.on('stalled', () => {
      stalled += 1;
    });
    const gate = gated();
    const worker = createWorker({
      connection,
      queue,
      name: 'renewer',
      agents: [gate.agent],
      lockDurationMs: 1000,
      stalledIntervalMs: 100,
    });
    const executor = createQueueExecutor({ connection, queue });
    try {
      await Promise.all([worker.ready, events.waitUntilReady()]);
      const out = oneTask(executor).kickoff();
      const [lock] = await keysOnce(redis, `bull:${queue}:*:lock`);
      // The lock is renewed (its time left goes up) four times while the call goes on, and never runs
      // out. BullMQ renews a lock more than a quarter of its duration after the last renewal: four
      // renewals outlast the lock itself.
      let renewals = 0;
      let last = await redis.pttl(lock as string);
      while (renewals < 4) {
        await new Promise((resolve) => setTimeout(resolve, 10)); // between two looks at the lock
        const left = await redis.pttl(lock as string);
        expect(left).toBeGreaterThan(0);
        if (left > last) renewals += 1;
        last = left;
      }
      gate.open();
      const result = await out;
      expect(result.raw).toBe('done');
      expect(result.nodes[0]).toMatchObject({ attempts: 1, worker: 'renewer' });
      expect(gate.calls()).toBe(1);
      expect(stalled).toBe(0);
    } finally {
      gate.open();
      await Promise.all([executor.close(), worker.close(), events.close()]);
      redis.disconnect();
      await obliterate(queue);
    }
  });
});

/** The agent `Analyst` of a worker: each call answers `done` once `open` was called; `calls` counts them. */
function gated() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  const llm = async () => {
    calls += 1;
    await opened;
    return 'done';
  };
  return { agent: new Agent({ role: 'Analyst', llm }), open: () => open(), calls: () => calls };
}

/** A crew of one task for `Analyst`, its conversation sent through `executor`. */
function oneTask(executor: ReturnType<typeof createQueueExecutor>) {
  const analyst = new Agent({ role: 'Analyst', llm: () => 'not run in this process' });
  return new Crew({
    tasks: [new Task({ name: 'long', description: 'a long call', agent: analyst })],
    executor,
  });
}

/** The keys matching `pattern`, once there are some. */
async function keysOnce(redis: Redis, pattern: string): Promise<string[]> {
  for (;;) {
    const keys = await redis.keys(pattern);
    if (keys.length > 0) return keys;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
