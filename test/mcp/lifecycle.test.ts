import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agent, Crew, McpUnavailableError, Task } from '../../src/index.js';
import { mcpPool, mcpServer } from '../../src/mcp/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { callTool, childPids, filesystemServer, tempRoot } from './servers.js';

let folder: ReturnType<typeof tempRoot>;
beforeEach(() => {
  folder = tempRoot();
});
afterEach(() => folder.remove());

/** Kills the server's process and waits until its connection saw it go. */
async function killServer(pid: number | undefined, pidNow: () => number | undefined): Promise<void> {
  expect(pid).toBeTypeOf('number');
  process.kill(pid as number, 'SIGKILL');
  await vi.waitFor(() => expect(pidNow()).toBeUndefined(), { timeout: 30_000 });
}

describe('MCP server lifecycle', () => {
  it('reconnects a killed server on the next call, once; when reconnecting fails, mcp_unavailable', async () => {
    const pool = mcpPool({ servers: [mcpServer(filesystemServer(folder.root))] });
    const pids: (number | undefined)[] = [];
    const read = callTool('fs_read_text_file', { path: `${folder.root}/notes.txt` });
    const llm = createScriptedModel([
      callTool('fs_list_directory', { path: folder.root }),
      async () => {
        pids.push(pool.pidOf('fs'));
        await killServer(pids[0], () => pool.pidOf('fs'));
        return read;
      },
      async () => {
        pids.push(pool.pidOf('fs'));
        // Its allowed folder gone, the server refuses to start again.
        folder.remove();
        await killServer(pids[1], () => pool.pidOf('fs'));
        return {
          ...read,
          toolCalls: [{ id: 'again', name: 'fs_list_directory', args: { path: folder.root } }],
        };
      },
      'unreachable',
    ]);
    const agent = new Agent({ role: 'Reader', llm, tools: [pool.server('fs')] });
    const task = new Task({ name: 'read', description: 'Read the notes', agent, maxRetries: 0 });
    try {
      const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
      expect(pids[1]).not.toBe(pids[0]);
      const [, reread] = result.nodes[0]?.toolCalls ?? [];
      expect(reread?.result).toContain('the meeting is on Tuesday');
      expect(result.status).toBe('failed');
      expect(result.failures.read).toMatchObject({
        code: 'mcp_unavailable',
        retryable: true,
        details: {
          server: 'fs',
          reason: expect.stringMatching(/reconnecting failed.*directories are accessible/),
        },
      });
    } finally {
      await pool.close();
    }
    expect(childPids()).not.toContain(pids[1]);
  }, 90_000);

  it('fails the attempt with mcp_unavailable when the server cannot start, naming it and why', async () => {
    const missing = mcpServer({ name: 'ghost', command: `${folder.root}/no-such-program` });
    const agent = new Agent({ role: 'Reader', llm: createScriptedModel(['never']), tools: [missing] });
    const task = new Task({ name: 'read', description: 'Read', agent, maxRetries: 0 });
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
    expect(result.failures.read).toMatchObject({
      code: 'mcp_unavailable',
      retryable: true,
      details: { server: 'ghost', reason: expect.stringMatching(/ENOENT/) },
    });
  }, 60_000);

  it('gives up on a server that does not initialize within connectTimeoutMs', async () => {
    // A process that starts and never speaks MCP: node waiting on its stdin.
    const silent = mcpServer(
      { name: 'silent', command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
      { connectTimeoutMs: 300 },
    );
    const agent = new Agent({ role: 'Reader', llm: createScriptedModel(['never']), tools: [silent] });
    const task = new Task({ name: 'read', description: 'Read', agent, maxRetries: 0 });
    const before = childPids().length;
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
    expect(result.failures.read?.code).toBe('mcp_unavailable');
    expect(result.failures.read?.message).toMatch(
      /"silent" is unavailable: it did not initialize within 300 ms \(connectTimeoutMs\)/,
    );
    expect(childPids().length).toBe(before);
  }, 60_000);

  it('leaves no child process behind after 50 runs, completed, failed or aborted', async () => {
    const baseline = childPids().length;
    const fs = mcpServer(filesystemServer(folder.root));
    /** Run `run`: it starts its own server; the model breaks in runs 3, 13, …, the run is aborted in 7, 17, …. */
    const oneRun = async (run: number) => {
      const controller = new AbortController();
      const llm = createScriptedModel([
        callTool('fs_list_directory', { path: folder.root }),
        (): string => {
          if (run % 10 === 3) throw new Error('the model broke');
          if (run % 10 === 7) controller.abort(new Error('stop'));
          return 'listed';
        },
      ]);
      const agent = new Agent({ role: 'Reader', llm, tools: [fs] });
      const task = new Task({ description: 'List', agent, maxRetries: 0 });
      const kickoff = new Crew({ agents: [agent], tasks: [task] }).kickoff({ signal: controller.signal });
      if (run % 10 === 7) await expect(kickoff).rejects.toThrow(/aborted/);
      else expect((await kickoff).status).toBe(run % 10 === 3 ? 'failed' : 'completed');
      expect(llm.calls).toHaveLength(2);
    };
    // Five runs side by side at a time, each with a server process of its own to start and end.
    for (let first = 0; first < 50; first += 5) {
      await Promise.all([0, 1, 2, 3, 4].map((i) => oneRun(first + i)));
    }
    expect(childPids().length).toBe(baseline);
  }, 240_000);

  it('shares one pooled connection across runs until the pool closes; then mcp_unavailable', async () => {
    const pool = mcpPool({ servers: [mcpServer(filesystemServer(folder.root))] });
    const pidsSeen = new Set<number | undefined>();
    for (let run = 0; run < 3; run += 1) {
      const llm = createScriptedModel([
        callTool('fs_list_directory', { path: folder.root }),
        () => {
          pidsSeen.add(pool.pidOf('fs'));
          return 'listed';
        },
      ]);
      const agent = new Agent({ role: 'Reader', llm, tools: [pool.server('fs')] });
      const result = await new Crew({
        agents: [agent],
        tasks: [new Task({ description: 'List', agent })],
      }).kickoff();
      expect(result.status).toBe('completed');
    }
    expect(pidsSeen.size).toBe(1);
    const [pid] = pidsSeen;
    expect(childPids()).toContain(pid);
    await pool.close();
    expect(childPids()).not.toContain(pid);
    const agent = new Agent({
      role: 'Reader',
      llm: createScriptedModel(['never']),
      tools: [pool.server('fs')],
    });
    const task = new Task({ name: 'late', description: 'List', agent, maxRetries: 0 });
    const late = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
    expect(late.failures.late).toMatchObject({
      code: 'mcp_unavailable',
      details: { reason: 'its pool was closed' },
    });
    expect(new McpUnavailableError('fs', 'x').retryable).toBe(true);
  }, 90_000);
});
