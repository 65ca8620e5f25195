import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, Crew, MemoryStore, Task } from '../../src/index.js';
import { createQueueExecutor, createWorker } from '../../src/queue/index.js';
import { gatedModel } from '../helpers.js';
import { noServices, obliterate } from './queue-helpers.js';

if (noServices)
  console.log('Queue failure tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

let servers: ChildProcess[] = [];
afterEach(() => {
  for (const server of servers) server.kill('SIGKILL');
  servers = [];
});

/** Resolves once something accepts connections on `port`. */
async function listening(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setImmediate(r));
  }
}

/** A Redis server of the test's own, which it can stop. */
async function redisServer(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  servers.push(server);
  await listening(port);
  return server;
}

const stopped = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

describe.skipIf(noServices)('the queue when Redis is not there', () => {
  it('fails a run’s tasks with queue_unavailable when Redis cannot be reached at the start', async () => {
    const executor = createQueueExecutor({ connection: 'redis://127.0.0.1:1', connectTimeoutMs: 200 });
    try {
      const agent = new Agent({ role: 'Analyst', llm: () => 'x', maxRetries: 0 });
      const out = await new Crew({
        tasks: [new Task({ name: 't', description: 'x', agent })],
        executor,
      }).kickoff();
      expect(out.status).toBe('failed');
      expect(out.failures.t).toMatchObject({ code: 'queue_unavailable' });
      expect(out.errors.t).toMatch(/Queue "statecrew" cannot reach its server/);
    } finally {
      await executor.close();
    }
    const worker = createWorker({ connection: 'redis://127.0.0.1:1', connectTimeoutMs: 200, agents: [] });
    await expect(worker.ready).rejects.toMatchObject({ code: 'queue_unavailable' });
    await worker.close();
  });

  it('cancels a job in flight on its worker when the run is aborted', async () => {
    const queue = `abort-${randomUUID()}`;
    const gate = gatedModel();
    const worker = createWorker({
      connection: 'redis://127.0.0.1:6379',
      queue,
      agents: [new Agent({ role: 'Analyst', llm: gate.model })],
    });
    await worker.ready;
    const executor = createQueueExecutor({ connection: 'redis://127.0.0.1:6379', queue });
    const analyst = new Agent({ role: 'Analyst', llm: () => 'not here' });
    const controller = new AbortController();
    const result = new Crew({
      tasks: [new Task({ name: 'a', description: 'a', agent: analyst })],
      executor,
    }).kickoff({
      signal: controller.signal,
    });
    await gate.whenCalled('a');
    controller.abort(new Error('stop'));
    await expect(result).rejects.toMatchObject({ code: 'aborted' });
    // The worker's model call sees its signal abort (the cancel crosses Redis): the job was cancelled where it ran.
    while (gate.model.aborted.length === 0) await new Promise((r) => setImmediate(r));
    expect(gate.model.aborted).toHaveLength(1);
    await worker.close();
    await executor.close();
    await obliterate(queue);
  });

  it('fails the run with the cause when Redis is lost mid-run; the stored results let resume finish it', async () => {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const connection = `redis://127.0.0.1:${port}`;
    const queue = `lost-${randomUUID()}`;
    const server = await redisServer(port);
    const gate = gatedModel();
    const worker = createWorker({
      connection,
      queue,
      agents: [new Agent({ role: 'Analyst', llm: gate.model })],
    });
    await worker.ready;
    const executor = createQueueExecutor({ connection, queue });
    const store = new MemoryStore();
    const analyst = new Agent({ role: 'Analyst', llm: () => 'not here', maxRetries: 0 });
    const crew = new Crew({
      tasks: ['a', 'b', 'c'].map((name) => new Task({ name, description: name, agent: analyst })),
      executor,
      store,
    });
    const result = crew.kickoff({ executionId: 'lost' });
    await gate.whenCalled('a');
    gate.release('a', 'A');
    await gate.whenCalled('b');
    server.kill('SIGKILL');
    await stopped(server);
    const out = await result;
    expect(out.status).toBe('partial');
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(['A']);
    expect(out.failures.b).toMatchObject({ code: 'queue_unavailable' });
    expect(out.errors.b).toMatch(/cannot reach its server/);
    expect(out.metadata.blocked).toEqual(['c']);

    // Redis is back: a new executor and worker, and the run goes on where it stopped.
    await redisServer(port);
    gate.release('b', 'B (lost)');
    await Promise.allSettled([executor.close(), worker.close()]);
    const again = gatedModel();
    const worker2 = createWorker({
      connection,
      queue,
      agents: [new Agent({ role: 'Analyst', llm: again.model })],
    });
    await worker2.ready;
    const executor2 = createQueueExecutor({ connection, queue });
    const resumed = new Crew({
      tasks: ['a', 'b', 'c'].map((name) => new Task({ name, description: name, agent: analyst })),
      executor: executor2,
      store,
    }).resume('lost');
    await again.whenCalled('b');
    again.release('b', 'B');
    await again.whenCalled('c');
    again.release('c', 'C');
    const done = await resumed;
    expect(done.status).toBe('completed');
    expect(done.tasksOutput.map((t) => t.raw)).toEqual(['A', 'B', 'C']);
    expect(again.started).toEqual(['b', 'c']);
    await executor2.close();
    await worker2.close();
  }, 30_000);
});
