import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, McpResultTooLargeError, McpUnavailableError, Task } from '../../src/index.js';
import { McpConnection } from '../../src/mcp/connection.js';
import { mcpPool, mcpServer } from '../../src/mcp/index.js';
import { checkServerConfig, type McpServerOptions } from '../../src/mcp/options.js';
import { createScriptedModel } from '../../src/testing.js';
import { alive, callTool, unrulyServer } from './servers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statecrew-unruly-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A connection to the unruly server, connected. */
async function connected(options: McpServerOptions = {}, env?: Record<string, string>) {
  const connection = new McpConnection(checkServerConfig(unrulyServer(env), options));
  await connection.connect();
  return connection;
}

/** What `promise` came to by the time every pending callback ran: its value, its error, or pending. */
async function outcome(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown } | 'pending'> {
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const later = new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')));
  return Promise.race([settled, later]);
}

describe('an MCP tool that never answers', () => {
  it('fails the task with mcp_unavailable once callTimeoutMs passes, and the run settles', async () => {
    const unruly = mcpServer(unrulyServer(), { include: ['hang'], callTimeoutMs: 300 });
    const llm = createScriptedModel([callTool('unruly_hang', {}), 'never reached']);
    const agent = new Agent({ role: 'Waiter', llm, tools: [unruly] });
    const task = new Task({ name: 'wait', description: 'Wait for it', agent, maxRetries: 0 });
    const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
    expect(result.status).toBe('failed');
    expect(result.failures.wait).toMatchObject({
      code: 'mcp_unavailable',
      details: {
        server: 'unruly',
        reason: 'it did not answer in time calling tool "hang" (callTimeoutMs: 300 ms)',
      },
    });
    expect(llm.calls).toHaveLength(1);
  }, 60_000);

  it('gives a call 60 s when callTimeoutMs is not set', async () => {
    expect(checkServerConfig(unrulyServer(), {}).callTimeoutMs).toBe(60_000);
    const connection = await connected();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const call = connection.call('hang', {}, new AbortController().signal);
      await vi.advanceTimersByTimeAsync(59_999);
      expect(await outcome(call)).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      const settled = await outcome(call);
      expect(settled).not.toBe('pending');
      const { error } = settled as { error: unknown };
      expect(error).toBeInstanceOf(McpUnavailableError);
      expect((error as McpUnavailableError).details.reason).toBe(
        'it did not answer in time calling tool "hang" (callTimeoutMs: 60000 ms)',
      );
    } finally {
      vi.useRealTimers();
      await connection.close();
    }
  }, 60_000);

  it('gives a call its callTimeoutMs again with each progress notification; 0 is no limit', async () => {
    const connection = await connected({ callTimeoutMs: 1000 });
    const heard: Array<() => void> = [];
    const steps = [1, 2, 3].map((n) => new Promise<void>((resolve) => (heard[n] = resolve)));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const args = { dir, count: 3 };
      const call = connection.call('steps', args, new AbortController().signal, ({ progress }) =>
        heard[progress]?.(),
      );
      // A call that fails ends the wait for its steps at once, with its error.
      const failed = call.then(() => new Promise<never>(() => {}));
      // 2.7 s in all, never a second without a word from the server.
      for (const [index, step] of steps.entries()) {
        await Promise.race([step, failed]);
        await vi.advanceTimersByTimeAsync(900);
        writeFileSync(join(dir, `go-${index + 1}`), '');
      }
      expect(await call).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    } finally {
      vi.useRealTimers();
      await connection.close();
    }
    expect(() => checkServerConfig(unrulyServer(), { callTimeoutMs: 0 })).not.toThrow();
  }, 60_000);
});

describe('an MCP tool result larger than maxResultBytes', () => {
  it('fails the task once with mcp_result_too_large, not retried, naming the tool, the size and the limit', async () => {
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');
    const pool = mcpPool({ servers: [mcpServer(unrulyServer({ CALLS_FILE: calls }))] });
    const bytes = 50 * 1024 * 1024;
    const llm = createScriptedModel([callTool('unruly_big', { bytes }), 'never reached']);
    const agent = new Agent({ role: 'Reader', llm, tools: [pool.server('unruly')] });
    const task = new Task({ name: 'read', description: 'Read it all', agent, maxRetries: 2 });
    try {
      const result = await new Crew({ agents: [agent], tasks: [task] }).kickoff();
      expect(result.status).toBe('failed');
      expect(result.failures.read).toMatchObject({
        code: 'mcp_result_too_large',
        retryable: false,
        details: { server: 'unruly', tool: 'big', bytes: expect.any(Number), limit: 10 * 1024 * 1024 },
      });
      const { bytes: sent } = (result.failures.read?.details ?? {}) as { bytes?: number };
      expect(sent).toBeGreaterThan(bytes);
      expect(readFileSync(calls, 'utf8')).toBe('big\n');
      // The connection went on: the same server process answers the next run.
      const pid = pool.pidOf('unruly');
      const again = createScriptedModel([callTool('unruly_small', {}), 'fine']);
      const next = new Agent({ role: 'Reader', llm: again, tools: [pool.server('unruly')] });
      const out = await new Crew({
        agents: [next],
        tasks: [new Task({ description: 'Again', agent: next })],
      }).kickoff();
      expect(out.nodes[0]?.toolCalls[0]?.result).toBe('ok');
      expect(pid).toBeTypeOf('number');
      expect(pool.pidOf('unruly')).toBe(pid);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('takes a result up to maxResultBytes, and refuses one over it with the error in its place', async () => {
    const connection = await connected({ maxResultBytes: 4096 });
    try {
      const fits = await connection.call('big', { bytes: 3000 }, new AbortController().signal);
      expect(JSON.stringify(fits)).toContain('x'.repeat(3000));
      const over = connection.call('big', { bytes: 5000 }, new AbortController().signal);
      await expect(over).rejects.toBeInstanceOf(McpResultTooLargeError);
      await expect(over).rejects.toMatchObject({ details: { tool: 'big', limit: 4096 } });
      const small = await connection.call('small', {}, new AbortController().signal);
      expect(small).toMatchObject({ content: [{ text: 'ok' }] });
    } finally {
      await connection.close();
    }
  }, 60_000);
});

describe('a process an MCP server started', () => {
  it('is ended with the server when its run settles', async () => {
    const unruly = mcpServer(unrulyServer(), { include: ['spawn'] });
    const llm = createScriptedModel([callTool('unruly_spawn', {}), 'spawned']);
    const agent = new Agent({ role: 'Starter', llm, tools: [unruly] });
    const result = await new Crew({
      agents: [agent],
      tasks: [new Task({ description: 'Start', agent })],
    }).kickoff();
    const pid = Number(result.nodes[0]?.toolCalls[0]?.result);
    expect(pid).toBeGreaterThan(0);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
  }, 60_000);

  it('is ended when its pool closes', async () => {
    const pool = mcpPool({ servers: [mcpServer(unrulyServer())] });
    const llm = createScriptedModel([callTool('unruly_spawn', {}), 'spawned']);
    const agent = new Agent({ role: 'Starter', llm, tools: [pool.server('unruly')] });
    let pid = 0;
    try {
      const result = await new Crew({
        agents: [agent],
        tasks: [new Task({ description: 'Start', agent })],
      }).kickoff();
      pid = Number(result.nodes[0]?.toolCalls[0]?.result);
      expect(alive(pid)).toBe(true);
    } finally {
      await pool.close();
    }
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
  }, 60_000);
});

describe('a process an MCP server started, when the process that holds the server exits', () => {
  it('is ended even though the pool was never closed', () => {
    const script = fileURLToPath(new URL('../fixtures/mcp/exit-with-server.mjs', import.meta.url));
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
    const { server, started } = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
    expect(server).toBeGreaterThan(0);
    expect(started).toBeGreaterThan(0);
    return vi.waitFor(
      () => {
        expect(alive(started as number)).toBe(false);
        expect(alive(server as number)).toBe(false);
      },
      { timeout: 20_000, interval: 50 },
    );
  }, 90_000);
});

/** A streamable HTTP MCP server on a free port whose tool `big` answers with `bytes` bytes of text. */
async function httpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    const server = new SdkMcpServer({ name: 'remote', version: '1.0.0' });
    server.registerTool('big', { inputSchema: { bytes: z.number().int() } }, ({ bytes }) => ({
      content: [{ type: 'text', text: 'x'.repeat(bytes) }],
    }));
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

describe('an HTTP MCP tool result larger than maxResultBytes', () => {
  it('fails the call with mcp_result_too_large, naming the tool and the limit', async () => {
    const remote = await httpServer();
    const config = checkServerConfig({ name: 'remote', url: remote.url }, { maxResultBytes: 4096 });
    const connection = new McpConnection(config);
    try {
      await connection.connect();
      const fits = await connection.call('big', { bytes: 1000 }, new AbortController().signal);
      expect(JSON.stringify(fits)).toContain('x'.repeat(1000));
      const over = connection.call('big', { bytes: 5000 }, new AbortController().signal);
      await expect(over).rejects.toMatchObject({
        code: 'mcp_result_too_large',
        details: { server: 'remote', tool: 'big', limit: 4096 },
      });
    } finally {
      await connection.close();
      await remote.close();
    }
  }, 60_000);
});
