import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { createQueueExecutor } from '../../src/queue/index.js';
import { connection, noServices, obliterate, startWorkerProcess } from './queue-helpers.js';

if (noServices)
  console.log('Fleet delegation test skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const WORKER = fileURLToPath(new URL('../fixtures/queue/delegating-worker.ts', import.meta.url));

let children: ChildProcess[] = [];
const queues: string[] = [];
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  for (const queue of queues.splice(0)) await obliterate(queue);
});

describe.skipIf(noServices)('delegation on a fleet', () => {
  it('a conversation held by a worker process delegates to a coworker there, which uses its own tool', async () => {
    const queue = `delegation-${randomUUID()}`;
    queues.push(queue);
    children.push(await startWorkerProcess(WORKER, { QUEUE: queue, NAME: 'w1' }));
    const executor = createQueueExecutor({ connection, queue });
    try {
      // This process's agents never think: the worker holds them by role.
      const writer = new Agent({ role: 'Writer', llm: () => 'not here', allowDelegation: true });
      const researcher = new Agent({ role: 'Researcher', llm: () => 'not here' });
      const crew = new Crew({
        agents: [writer, researcher],
        tasks: [new Task({ name: 'article', description: 'Write about otters', agent: writer })],
        executor,
      });
      const events: StatecrewEvent[] = [];
      const run = crew.run();
      run.events$.subscribe((e) => events.push(e));
      const out = await run.result;
      expect(out.status).toBe('completed');
      expect(out.raw).toBe('Article: Facts (w1): the archive on otters: otters hold hands');
      expect(out.delegations).toEqual([
        {
          kind: 'delegate',
          from: 'Writer',
          to: 'Researcher',
          role: 'Researcher',
          task: 'Find facts on otters',
          nodeId: 'article',
        },
      ]);
      expect(out.nodes[0]?.worker).toBe('w1');
      // The coworker's two calls count in the node's usage and under its role; its tool call is the node's.
      expect(out.nodes[0]?.usage.calls).toBe(4);
      expect(out.usage.agents.Researcher?.calls).toBe(2);
      expect(out.usage.agents.Writer?.calls).toBe(2);
      expect(out.nodes[0]?.toolCalls.map((c) => [c.tool, c.agent])).toEqual([
        ['archive', 'Researcher'],
        ['delegate_work', undefined],
      ]);
      const replied = events.find((e) => e.type === 'delegation.replied');
      expect(replied).toMatchObject({
        from: 'Writer',
        to: 'Researcher',
        reply: 'Facts (w1): the archive on otters: otters hold hands',
      });
    } finally {
      await executor.close();
    }
  }, 120_000);
});
