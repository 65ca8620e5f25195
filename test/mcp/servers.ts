import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCall } from '../../src/index.js';

const require = createRequire(import.meta.url);

/** The entry script of a published MCP server package. */
function serverScript(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}

/** `@modelcontextprotocol/server-filesystem` over stdio, allowed `root`. */
export function filesystemServer(root: string) {
  return {
    name: 'fs',
    command: process.execPath,
    args: [serverScript('@modelcontextprotocol/server-filesystem'), root],
  };
}

/** `@modelcontextprotocol/server-everything` over stdio. */
export function everythingServer() {
  return {
    name: 'everything',
    command: process.execPath,
    args: [serverScript('@modelcontextprotocol/server-everything'), 'stdio'],
  };
}

/** The unruly fixture server over stdio (see `test/fixtures/mcp/unruly-server.mjs`), with `env` added. */
export function unrulyServer(env?: Record<string, string>) {
  const script = fileURLToPath(new URL('../fixtures/mcp/unruly-server.mjs', import.meta.url));
  return { name: 'unruly', command: process.execPath, args: [script], ...(env === undefined ? {} : { env }) };
}

/** Whether process `pid` exists (a zombie not yet reaped counts as gone only once reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A temp folder with `notes.txt`; `remove()` deletes it. */
export function tempRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'statecrew-mcp-'));
  writeFileSync(join(root, 'notes.txt'), 'the meeting is on Tuesday');
  writeFileSync(join(root, 'todo.md'), '- buy milk');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A model reply calling one tool. */
export function callTool(
  name: string,
  args: unknown,
  id = `c-${name}`,
): { text: string; toolCalls: ToolCall[] } {
  return { text: '', toolCalls: [{ id, name, args }] };
}

/** The ids of this process's child processes (no zombies). */
export function childPids(): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,stat=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when there are none
  }
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, stat]) => pid !== undefined && pid !== '' && !stat?.startsWith('Z'))
    .map(([pid]) => Number(pid));
}
