import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { createQueueExecutor } from '../../src/queue/index.js';
import { connection, noServices, obliterate, startWorkerProcess } from './queue-helpers.js';

if (noServices) console.log('Fleet tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const WORKER = fileURLToPath(new URL('../fixtures/queue/worker-process.ts', import.meta.url));

let children: ChildProcess[] = [];
let queues: string[] = [];
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(
    children.map((c) =>
      c.exitCode === null && c.signalCode === null ? new Promise((r) => c.on('exit', r)) : undefined,
    ),
  );
  children = [];
  for (const queue of queues) {
    await obliterate(queue);
  }
  queues = [];
});

/** Starts a worker process on `queue`; resolves once it takes jobs. */
function startWorker(queue: string, name: string): Promise<ChildProcess> {
  const started = startWorkerProcess(WORKER, { QUEUE: queue, NAME: name, WORKERS: '3' });
  // Killed after the test, whether or not it got ready.
  started.then(
    (child) => children.push(child),
    () => {},
  );
  return started;
}

/** A graph of 300 tasks: a root, 298 that read it, and a join that reads them all. */
function graph300(executor: ReturnType<typeof createQueueExecutor>) {
  // The caller's agent never thinks here: its model is the workers' (found by the role, Analyst).
  const analyst = new Agent({ role: 'Analyst', llm: () => 'not run in this process', retryDelayMs: 0 });
  const root = new Task({ name: 'root', description: 'frame the question', agent: analyst });
  const middle = Array.from(
    { length: 298 },
    (_, i) =>
      new Task({ name: `part-${i}`, description: `study part ${i}`, agent: analyst, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'merge the parts', agent: analyst, context: middle });
  return new Crew({ tasks: [root, ...middle, join], process: 'graph', maxConcurrency: 32, executor });
}

describe.skipIf(noServices)('a fleet of worker processes on one BullMQ queue', () => {
  it('runs a 300-task graph over 3 worker processes, every task run recorded exactly once', async () => {
    const queue = `fleet-${randomUUID()}`;
    queues.push(queue);
    await Promise.all(['w1', 'w2', 'w3'].map((name) => startWorker(queue, name)));
    const executor = createQueueExecutor({ connection, queue });
    try {
      const run = graph300(executor).run();
      const completions: string[] = [];
      run.events$.subscribe((e: StatecrewEvent) => e.type === 'node.completed' && completions.push(e.nodeId));
      const out = await run.result;
      expect(out.status).toBe('completed');
      expect(out.tasksOutput).toHaveLength(300);
      expect(new Set(completions).size).toBe(300);
      expect(completions).toHaveLength(300);
      expect(out.nodes.every((n) => n.attempts === 1)).toBe(true);
      expect(new Set(out.nodes.map((n) => n.worker))).toEqual(new Set(['w1', 'w2', 'w3']));
      expect(out.outputOf({ name: 'part-7' })?.raw).toMatch(/^w\d did study part 7$/);
      expect(out.usage.calls).toBe(300);
    } finally {
      await executor.close();
    }
  }, 60_000);

  it('completes the run with nothing lost when one worker is killed (SIGKILL) mid-run', async () => {
    const queue = `fleet-${randomUUID()}`;
    queues.push(queue);
    const [, doomed] = await Promise.all(['w1', 'w2', 'w3'].map((name) => startWorker(queue, name)));
    const executor = createQueueExecutor({ connection, queue });
    try {
      const run = graph300(executor).run();
      const completions: string[] = [];
      let killed = false;
      run.events$.subscribe((e: StatecrewEvent) => {
        if (e.type !== 'node.completed') return;
        completions.push(e.nodeId);
        if (completions.length === 60 && !killed) {
          killed = true;
          doomed?.kill('SIGKILL');
        }
      });
      const out = await run.result;
      expect(killed).toBe(true);
      expect(out.status).toBe('completed');
      expect(completions).toHaveLength(300);
      expect(new Set(completions).size).toBe(300);
      expect(out.nodes.every((n) => n.attempts === 1 && n.status === 'completed')).toBe(true);
      // The two others finished the run: 240 tasks were left at the kill, and the killed worker does a
      // handful more at most before the signal lands. (Which completion was its last cannot be told by
      // position: its events still arrive a little after the kill, the more so on a loaded machine.)
      const byOthers = out.nodes.filter((n) => n.worker === 'w1' || n.worker === 'w3').length;
      expect(byOthers).toBeGreaterThan(200);
    } finally {
      await executor.close();
    }
  }, 60_000);
});
