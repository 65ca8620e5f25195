import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createQueueExecutor, createRunQueue } from '../../src/queue/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { connection, keyTtls, noServices, obliterate } from '../executors/queue-helpers.js';
import { tempRoot } from '../mcp/servers.js';
import { CLI_TIMEOUT, cli, fixture, type Running, start } from './cli-helpers.js';

if (noServices)
  console.log('CLI worker tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-worker-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe.skipIf(noServices)('statecrew worker', { timeout: CLI_TIMEOUT }, () => {
  it('takes a module’s conversations and whole runs from the queue, and stops cleanly on SIGTERM', async () => {
    const queue = `cli-${randomUUID()}`;
    const worker = start(
      [
        'worker',
        fixture('crew.ts'),
        '--queue',
        queue,
        '--name',
        'cli-worker',
        '--store',
        `sqlite:${join(cwd, 'w.db')}`,
      ],
      { cwd },
    );
    try {
      await worker.whenPrinted('ready');
      expect(worker.output()).toContain(
        `worker cli-worker on queue ${queue}: agents Researcher, Writer; runs of research; ready`,
      );
      // A whole run of the module's crew, by its name.
      const runs = createRunQueue({ connection, queue });
      const { result } = await runs.submitRun('research', { topic: 'queues' });
      expect(await result).toMatchObject({
        status: 'completed',
        worker: 'cli-worker',
        output: 'Writer: edit the draft',
      });
      await runs.close();
      // A crew of this process whose agents' conversations the worker holds, by their roles.
      const executor = createQueueExecutor({ connection, queue });
      const here = new Agent({ role: 'Writer', llm: () => 'not in this process' });
      const out = await new Crew({
        tasks: [new Task({ name: 'w', description: 'write about workers', agent: here })],
        executor,
      }).kickoff();
      expect(out.raw).toBe('Writer: write about workers');
      expect(out.nodes[0]?.worker).toBe('cli-worker');
      await executor.close();
      worker.child.kill('SIGTERM');
      const ended = await worker.done;
      expect(ended.code).toBe(0);
      expect(ended.stdout).toContain('worker cli-worker stopping');
    } finally {
      worker.child.kill('SIGKILL');
      await obliterate(queue);
      await obliterate(`${queue}-runs`);
    }
  });

  it('reaches the MCP servers its module grants through its own connection, and leaves no server process behind', async () => {
    const queue = `cli-mcp-${randomUUID()}`;
    const folder = tempRoot();
    const worker = start(
      ['worker', fixture('mcp-worker-crew.ts'), '--queue', queue, '--name', 'mcp-worker'],
      {
        cwd,
        env: { NOTES_DIR: folder.root },
      },
    );
    const workerPid = worker.child.pid as number;
    try {
      await worker.whenPrinted('ready');
      expect(worker.output()).toContain(
        `worker mcp-worker on queue ${queue}: agents Reader; runs of notes; ready`,
      );
      // No server starts before a job needs it (tsx, which loads the module, may hold a process).
      const before = childrenOf(workerPid);
      // A whole run of the module's crew: the worker's agent lists and reads through the server.
      const runs = createRunQueue({ connection, queue });
      const { result } = await runs.submitRun('notes', { file: 'notes.txt' });
      expect(await result).toMatchObject({
        status: 'completed',
        worker: 'mcp-worker',
        output: 'notes.txt says: the meeting is on Tuesday',
      });
      await runs.close();
      // The whole run opened its own connection and closed it when it settled.
      expect(childrenOf(workerPid).filter((pid) => !before.includes(pid))).toEqual([]);
      // A conversation of this process's crew: only the server's name travels in the job, so a
      // description here that could never start does not matter.
      const executor = createQueueExecutor({ connection, queue });
      const unstartable = mcpServer({ name: 'fs', command: `${folder.root}/no-such-program` });
      const here = new Agent({
        role: 'Reader',
        llm: createScriptedModel(['never here']),
        tools: [unstartable.tools(['list_directory', 'read_text_file'])],
      });
      const out = await new Crew({
        tasks: [new Task({ name: 'r', description: 'read todo.md', agent: here })],
        executor,
      }).kickoff();
      expect(out.raw).toBe('todo.md says: - buy milk');
      expect(out.nodes[0]?.worker).toBe('mcp-worker');
      await executor.close();
      // The conversation went through the worker's own connection, which stays open for the next
      // job, and ends with the worker.
      const servers = childrenOf(workerPid).filter((pid) => !before.includes(pid));
      expect(servers).toHaveLength(1);
      worker.child.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      expect(servers.filter(isAlive)).toEqual([]);
    } finally {
      worker.child.kill('SIGKILL');
      folder.remove();
      await obliterate(queue);
      await obliterate(`${queue}-runs`);
    }
  });
});

describe('statecrew worker options', () => {
  it.each([
    ['--lock-duration', '500', 'a whole number of ms ≥ 1000'],
    ['--lock-duration', '5s', 'a whole number of ms ≥ 1000'],
    ['--stalled-interval', '0', 'a whole number of ms ≥ 100'],
    ['--stalled-interval', '2.5', 'a whole number of ms ≥ 100'],
    ['--concurrency', 'many', 'a whole number ≥ 1'],
  ])('refuses %s %s before connecting (invalid_option, exit 1)', async (flag, value, expected) => {
    // Nothing listens at that port: a worker that went on would fail to connect, not print ready.
    const args = ['worker', fixture('crew.ts'), flag, value, '--connection', 'redis://127.0.0.1:1'];
    const ran = await cli(args, { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`option "${flag}" must be ${expected}, got "${value}" (invalid_option)`);
    expect(ran.stdout).not.toContain('ready');
  });
});

describe.skipIf(noServices)('statecrew worker fleet', { timeout: CLI_TIMEOUT }, () => {
  it('takes --lock-duration and --stalled-interval: a SIGKILLed worker’s jobs go to the other, nothing lost', async () => {
    const queue = `cli-fleet-${randomUUID()}`;
    const tuning = ['--concurrency', '4', '--lock-duration', '1000', '--stalled-interval', '300'];
    const workers = ['k1', 'k2'].map((name) =>
      start(['worker', fixture('fleet-worker.ts'), '--queue', queue, '--name', name, ...tuning], {
        cwd,
        env: { NAME: name, DELAY_MS: '50' },
      }),
    );
    const redis = new Redis(connection);
    const events = new QueueEvents(queue, { connection: { host: '127.0.0.1', port: 6379 } });
    let stalled = 0;
    events.on('stalled', () => {
      stalled += 1;
    });
    const executor = createQueueExecutor({ connection, queue });
    try {
      await Promise.all([events.waitUntilReady(), ...workers.map((w) => w.whenPrinted('ready'))]);
      // Each look for stalled jobs holds its key for the interval: never more than 300 ms left.
      const checks = await keyTtls(redis, async () => [`bull:${queue}:stalled-check`], 20);
      expect(Math.max(...checks)).toBeLessThanOrEqual(300);
      // 16 jobs in flight, 4 on each worker: both hold jobs while the queue has more.
      const run = graph(100, executor).run();
      const completions: string[] = [];
      run.events$.subscribe((e: StatecrewEvent) => {
        if (e.type !== 'node.completed') return;
        completions.push(e.nodeId);
        if (completions.length === 30) workers[1]?.child.kill('SIGKILL');
      });
      // The locks of the jobs in flight are taken, and renewed, for 1000 ms at most.
      const locks = await keyTtls(redis, () => redis.keys(`bull:${queue}:*:lock`), 5);
      expect(Math.max(...locks)).toBeLessThanOrEqual(1000);
      const out = await run.result;
      expect(workers[1]?.child.signalCode).toBe('SIGKILL');
      expect(out.status).toBe('completed');
      expect(completions).toHaveLength(100);
      expect(new Set(completions).size).toBe(100);
      // The killed worker's jobs were put back and run again, the same attempt: none failed.
      expect(out.nodes.every((n) => n.attempts === 1 && n.status === 'completed')).toBe(true);
      await vi.waitFor(() => expect(stalled).toBeGreaterThan(0), { timeout: 30_000 });
      expect(out.nodes.filter((n) => n.worker === 'k1').length).toBeGreaterThan(50);
    } finally {
      await stopAll(workers);
      await Promise.all([executor.close(), events.close()]);
      redis.disconnect();
      await obliterate(queue);
    }
  });
});

/** A graph crew of `size` tasks on `executor`: a root, the parts that read it, a join that reads them all. */
function graph(size: number, executor: ReturnType<typeof createQueueExecutor>) {
  const analyst = new Agent({ role: 'Analyst', llm: () => 'not run in this process', retryDelayMs: 0 });
  const root = new Task({ name: 'root', description: 'frame the question', agent: analyst });
  const parts = Array.from(
    { length: size - 2 },
    (_, i) => new Task({ name: `part-${i}`, description: `part ${i}`, agent: analyst, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'merge the parts', agent: analyst, context: parts });
  return new Crew({ tasks: [root, ...parts, join], process: 'graph', maxConcurrency: 16, executor });
}

/** Kills the workers still running and waits for their ends. */
async function stopAll(workers: Running[]): Promise<void> {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.done));
}

/** The live child processes of `pid`. */
function childrenOf(pid: number): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,stat=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are none
  }
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([child, stat]) => child !== undefined && child !== '' && !stat?.startsWith('Z'))
    .map(([child]) => Number(child));
}

/** Whether a process still runs. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
