import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createQueueExecutor, createWorker } from '../../src/queue/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { connection, noServices, obliterate } from '../executors/queue-helpers.js';
import { callTool, childPids, everythingServer, filesystemServer, tempRoot } from '../mcp/servers.js';

if (noServices)
  console.log('Queue MCP tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

/**
 * The crew process's description of the "fs" server: a command that cannot start, so a run that
 * opened it here would fail with mcp_unavailable. Only its name travels in the job.
 */
const unstartable = (root: string) => mcpServer({ name: 'fs', command: `${root}/no-such-program` });

let folder: ReturnType<typeof tempRoot>;
let queue: string;

if (!noServices)
  describe('MCP servers of conversations held on queue workers', () => {
    beforeEach(() => {
      folder = tempRoot();
      queue = `mcp-${randomUUID()}`;
    });
    afterEach(async () => {
      folder.remove();
      await obliterate(queue);
    });

    it("reaches the server through the worker's one connection, opened for the first job and closed with the worker", async () => {
      const baseline = childPids().length;
      const notes = `${folder.root}/notes.txt`;
      const llm = createScriptedModel([
        callTool('fs_list_directory', { path: folder.root }),
        callTool('fs_read_text_file', { path: notes }),
        'The meeting is on Tuesday.',
        callTool('fs_read_text_file', { path: `${folder.root}/todo.md` }),
        'Buy milk.',
      ]);
      const worker = createWorker({
        connection,
        queue,
        name: 'worker-1',
        agents: [new Agent({ role: 'Reader', llm })],
        mcps: { fs: mcpServer(filesystemServer(folder.root)) },
      });
      await worker.ready;
      const executor = createQueueExecutor({ connection, queue });
      const reader = new Agent({
        role: 'Reader',
        llm: createScriptedModel(['never here']),
        tools: [unstartable(folder.root)],
      });
      try {
        // Nothing connects before a job needs the server.
        expect(childPids().length).toBe(baseline);
        const first = await new Crew({
          tasks: [new Task({ name: 'read', description: 'When is the meeting?', agent: reader })],
          executor,
        }).kickoff();
        expect(first.status).toBe('completed');
        expect(first.raw).toBe('The meeting is on Tuesday.');
        const node = first.nodes[0];
        expect(node?.worker).toBe('worker-1');
        expect(node?.toolCalls.map((call) => call.tool)).toEqual(['fs_list_directory', 'fs_read_text_file']);
        expect(node?.toolCalls[0]?.result).toContain('[FILE] notes.txt');
        expect(node?.toolCalls[1]?.result).toBe('the meeting is on Tuesday');
        // The worker keeps its connection: one server process, used again by the next run's job.
        const serving = childPids().length;
        expect(serving).toBe(baseline + 1);
        const second = await new Crew({
          tasks: [new Task({ name: 'todo', description: 'What is to do?', agent: reader })],
          executor,
        }).kickoff();
        expect(second.raw).toBe('Buy milk.');
        expect(second.nodes[0]?.toolCalls[0]?.result).toBe('- buy milk');
        expect(childPids().length).toBe(serving);
      } finally {
        await executor.close();
        await worker.close();
      }
      // Closing the worker stopped the server's process.
      expect(childPids().length).toBe(baseline);
    }, 90_000);

    it('grants only the subset a task names, and sends the tool’s progress as it runs', async () => {
      const llm = createScriptedModel([
        callTool('everything_trigger-long-running-operation', { duration: 0.4, steps: 2 }),
        'Done.',
      ]);
      const worker = createWorker({
        connection,
        queue,
        agents: [new Agent({ role: 'Operator', llm })],
        mcps: [mcpServer(everythingServer())],
      });
      await worker.ready;
      const executor = createQueueExecutor({ connection, queue });
      const here = mcpServer({ name: 'everything', command: `${folder.root}/no-such-program` });
      const agent = new Agent({ role: 'Operator', llm: createScriptedModel(['never here']) });
      const task = new Task({
        name: 'operate',
        description: 'Run the operation',
        agent,
        tools: [here.tools(['trigger-long-running-operation'])],
      });
      try {
        const run = new Crew({ tasks: [task], executor }).run();
        const events: StatecrewEvent[] = [];
        run.events$.subscribe((event) => events.push(event));
        const result = await run.result;
        expect(result.status).toBe('completed');
        expect(llm.calls[0]?.tools.map((tool) => tool.name)).toEqual([
          'everything_trigger-long-running-operation',
        ]);
        expect(result.nodes[0]?.toolCalls[0]?.result).toMatch(/^Long running operation completed/);
        const progress = events.filter((e) => e.type === 'tool.progress');
        expect(progress.map((e) => [e.progress, e.total, e.nodeId])).toEqual([
          [1, 2, 'operate'],
          [2, 2, 'operate'],
        ]);
      } finally {
        await executor.close();
        await worker.close();
      }
    }, 90_000);

    it('fails a job naming a server the worker does not hold with unknown_mcp_server, not retried', async () => {
      const worker = createWorker({
        connection,
        queue,
        agents: [new Agent({ role: 'Reader', llm: createScriptedModel(['never']) })],
      });
      await worker.ready;
      const executor = createQueueExecutor({ connection, queue });
      const reader = new Agent({
        role: 'Reader',
        llm: createScriptedModel(['never']),
        tools: [unstartable(folder.root)],
      });
      try {
        const result = await new Crew({
          tasks: [new Task({ name: 'read', description: 'Read', agent: reader, maxRetries: 2 })],
          executor,
        }).kickoff();
        expect(result.status).toBe('failed');
        expect(result.failures.read).toMatchObject({
          code: 'unknown_mcp_server',
          message: expect.stringMatching(/holds no MCP server "fs" for agent "Reader" \(it holds none\)/),
        });
        expect(result.nodes[0]?.attempts).toBe(1);
      } finally {
        await executor.close();
        await worker.close();
      }
    }, 60_000);
  });
