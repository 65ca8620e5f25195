import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createQueueExecutor, createRunQueue } from '../../src/queue/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';
import { tempRoot } from '../mcp/servers.js';
import { fixture, start } from './cli-helpers.js';

if (noServices)
  console.log('CLI worker tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-worker-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe.skipIf(noServices)('statecrew worker', { timeout: 60_000 }, () => {
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
  }, 60_000);

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
  }, 60_000);
});

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
