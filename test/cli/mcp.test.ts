import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type Progress,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/index.js';
import { built, loadedBy } from '../helpers.js';
import { CLI, CLI_TIMEOUT, cli } from './cli-helpers.js';

const served = fileURLToPath(new URL('../fixtures/mcp/served.ts', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-mcp-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const store = `sqlite:${join(cwd, 'runs.db')}`;

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The tools the fixture module serves, by name. */
const TOOLS = ['fragile', 'invoice', 'payments', 'refunds', 'research', 'slow'];

/**
 * Lists the tools, checking each has an outputSchema: from then on the SDK's client checks every
 * result's structured content against it, and a result that does not fit rejects the call.
 */
async function listChecked(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  for (const tool of tools) {
    expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', required: ['status'] });
  }
  return tools;
}

/** The text of a result's first content part. */
const textOf = (result: CallToolResult) => (result.content[0] as { text: string } | undefined)?.text ?? '';

/** `statecrew mcp` over stdio, driven by the SDK's own client. */
async function stdioClient(args: readonly string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', served, ...args],
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiting.filter((w) => stderr.includes(w.text))) w.resolve();
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  /** Resolves once stderr holds `text` (stderr and stdout are separate pipes: no order between them). */
  const whenLogged = (text: string) =>
    stderr.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.push({ text, resolve }));
  return { client, pid: transport.pid as number, whenLogged, logged: () => stderr };
}

describe('statecrew mcp over stdio', { timeout: CLI_TIMEOUT }, () => {
  it('lists the exported crews and flows with output schemas, calls a crew with progress, a failing crew, a flow that pauses for a human and one that waits for an event, and cancels a call (its run kept aborted)', async () => {
    const { client, pid, whenLogged, logged } = await stdioClient(['--store', store]);
    try {
      const tools = await listChecked(client);
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.research?.inputSchema).toMatchObject({ required: ['topic'] });
      expect(byName.invoice?.inputSchema).toMatchObject({
        properties: { customer: { type: 'string' }, total: { type: 'number' } },
        required: ['customer', 'total'],
      });

      // Heard by a handler of our own, not the SDK's `onprogress`: the SDK hands notifications over
      // on a later microtask but a response at once, so one read that holds the last progress
      // notifications and the result (a loaded machine) drops them once the result is in.
      const seen: Progress[] = [];
      client.setNotificationHandler(ProgressNotificationSchema, (n) => {
        if (n.params.progressToken === 'owls') seen.push(n.params);
      });
      const crew = (await client.callTool({
        name: 'research',
        arguments: { topic: 'owls' },
        _meta: { progressToken: 'owls' },
      })) as CallToolResult;
      expect(crew.content).toEqual([{ type: 'text', text: 'Writer: edit the draft' }]);
      expect(crew.structuredContent).toMatchObject({
        status: 'completed',
        tasks: [{ name: 'research' }, { name: 'write' }, { name: 'edit' }],
      });
      expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
      // The module's console.log went to stderr: stdout carried the protocol alone.
      await whenLogged('answering research owls');

      const failed = await call(client, 'fragile', {});
      expect(failed.isError).toBe(true);
      expect(JSON.stringify(failed.content)).toContain('provider down');

      const paused = await call(client, 'refunds', { amount: 480 });
      const { executionId } = paused.structuredContent as { executionId: string };
      expect(paused.structuredContent).toMatchObject({
        status: 'paused',
        pending: { step: 'approval', prompt: 'Approve $480?' },
      });
      expect(textOf(paused)).toContain('Step "approval" asks: Approve $480?');
      // Another process answers: the run noted where its definition is.
      const resumed = await cli(['resume', executionId, '--route', 'approved', '--json', '--store', store], {
        cwd,
      });
      expect(resumed.stderr).toBe('');
      expect(JSON.parse(resumed.stdout)).toMatchObject({
        status: 'completed',
        state: { paid: true, amount: 480 },
      });

      // A run paused at a wait step names its event and the command that sends it, which goes on.
      const waiting = await call(client, 'payments', { amount: 12 });
      const run = (waiting.structuredContent as { executionId: string }).executionId;
      expect(waiting.structuredContent).toMatchObject({ status: 'paused', events: ['payment.received'] });
      expect(textOf(waiting)).toContain(`statecrew signal ${run} payment.received [--payload <json>]`);
      expect(textOf(waiting)).not.toContain('statecrew resume');
      const signaled = await cli(
        ['signal', run, 'payment.received', '--payload', '{"from":"Ada"}', '--json', '--store', store],
        { cwd },
      );
      expect(signaled.stderr).toBe('');
      expect(JSON.parse(signaled.stdout)).toMatchObject({ status: 'completed', output: 'thanks, Ada' });

      // Cancelling a call (notifications/cancelled) aborts its run.
      const cancel = new AbortController();
      const calling = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: cancel.signal });
      await whenLogged('slow: drafting');
      cancel.abort(new Error('the user cancelled'));
      await expect(calling).rejects.toThrow('the user cancelled');
      await whenLogged('of slow aborted');
    } finally {
      await client.close();
    }
    expect(alive(pid)).toBe(false);
    // Kept aborted, and its next task never ran.
    expect(logged()).not.toContain('slow: publish the note');
    const kept = new SqliteStore({ path: join(cwd, 'runs.db') });
    try {
      const runs = await kept.listRuns();
      expect(runs.filter((r) => r.name === 'slow').map((r) => r.status)).toEqual(['aborted']);
    } finally {
      await kept.close();
    }
  });

  it('without --store, answers a call that needs a store with store_required naming --store', async () => {
    const { client } = await stdioClient(['--export', 'refunds']);
    try {
      await client.listTools();
      const refused = await call(client, 'refunds', { amount: 480 });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        status: 'failed',
        error: { code: 'store_required' },
      });
      expect(textOf(refused)).toMatch(
        /needs a store to .*: pass --store <store> to statecrew mcp \(sqlite, sqlite:<path>, memory, postgres:\/\/… or redis:\/\/…\) \(store_required\)$/,
      );
    } finally {
      await client.close();
    }
  });

  it('serves only --export, and stops cleanly (exit 0) when its stdin closes', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', served, '--export', 'refunds'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain('statecrew mcp: serving refunds over stdio');
    expect(stderr).toContain('statecrew mcp: stopping');
    expect(stdout).toBe('');
    expect(code).toBe(0);
  });

  it('refuses a module that exports no crew or flow, with one line naming the code', async () => {
    const ran = await cli(['mcp', fileURLToPath(new URL('../fixtures/mcp/none.ts', import.meta.url))], {
      cwd,
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^statecrew: .*\(unknown_command_target\)\n$/);
    const badPort = await cli(['mcp', served, '--http', 'x'], { cwd });
    expect(badPort.stderr).toMatch(
      /^statecrew: option "--http" must be a port number .*\(invalid_option\)\n$/,
    );
  });
});

describe('statecrew mcp --http', { timeout: CLI_TIMEOUT }, () => {
  it('serves streamable HTTP at /mcp: lists tools, calls a crew and a flow that pauses, cancels a call (its run aborted); SIGTERM stops it', async () => {
    const file = join(cwd, 'http.db');
    const child = spawn(process.execPath, [CLI, 'mcp', served, '--http', '0', '--store', `sqlite:${file}`], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const waiting: { text: string; resolve: () => void }[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        for (const w of waiting.filter((w) => stderr.includes(w.text))) w.resolve();
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found !== null) resolve(found[1] as string);
      });
      child.on('close', () => reject(new Error(`exited before listening: ${stderr}`)));
    });
    /** Resolves once stderr holds `text`. */
    const whenLogged = (text: string) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ text, resolve }));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await listChecked(client);
      const crew = await call(client, 'research', { topic: 'bats' });
      expect(crew.structuredContent).toMatchObject({ status: 'completed', raw: 'Writer: edit the draft' });
      const paused = await call(client, 'refunds', { amount: 900 });
      expect(paused.structuredContent).toMatchObject({ status: 'paused', pending: { step: 'approval' } });
      const typed = await call(client, 'invoice', { customer: 'ACME', total: 12 });
      expect(typed.content).toEqual([{ type: 'text', text: 'billed ACME $12' }]);
      const invalid = await call(client, 'invoice', { customer: 'ACME', total: -1 });
      expect(invalid.isError).toBe(true);

      // Cancelling the call (the SDK's client sends notifications/cancelled) aborts its run.
      const cancel = new AbortController();
      const calling = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: cancel.signal });
      await whenLogged('slow: drafting');
      cancel.abort(new Error('the user cancelled'));
      await expect(calling).rejects.toThrow('the user cancelled');
      // Kept aborted before anything else stops the server.
      await whenLogged('of slow aborted');
    } finally {
      await client.close();
      child.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
    expect(stderr).toContain('statecrew mcp: stopping');
    expect(alive(child.pid as number)).toBe(false);
    // The run was kept aborted, and its next task never ran.
    expect(stderr).not.toContain('slow: publish the note');
    const kept = new SqliteStore({ path: file });
    try {
      const runs = await kept.listRuns();
      expect(runs.filter((r) => r.name === 'slow').map((r) => r.status)).toEqual(['aborted']);
    } finally {
      await kept.close();
    }
  });
});

describe('the statecrew command', () => {
  it('loads the MCP SDK only when the mcp command runs', () => {
    expect(loadedBy(built('cli/program.js'))).not.toContain('@modelcontextprotocol/sdk');
    expect(loadedBy(built('cli/commands/mcp.js'))).toContain('@modelcontextprotocol/sdk');
  });
});
