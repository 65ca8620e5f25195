import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createQueueExecutor, createRunQueue } from '../../src/queue/index.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';
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
});
