import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerSpec, McpStdioServer } from './options.js';
import { OWN_GROUPS } from './process-group.js';
import { StdioServerProcess } from './stdio-process.js';

/** The most of a server's stderr kept, to say why it stopped. */
const STDERR_TAIL = 2000;

/** A transport to a server, with what it can tell about the other end. */
export interface ServerTransport {
  transport: Transport;
  /** The child process's id (stdio), while it runs. */
  pid(): number | undefined;
  /** Whether a child process was started (stdio), even if it has exited since: closing waits for it. */
  spawned(): boolean;
  /** The end of what the child process wrote to stderr (stdio), to say why it stopped. */
  stderr(): string;
  /**
   * A message larger than `maxResultBytes` that ended the connection (stdio), with its size: the
   * calls it closed failed because of it.
   */
  tooLarge(): { bytes: number; limit: number } | undefined;
}

/**
 * A new transport to `spec`: a child process over stdio taking messages of at most `maxResultBytes`
 * (on POSIX the leader of a process group of its own), or streamable HTTP.
 */
export function createTransport(spec: McpServerSpec, maxResultBytes: number): ServerTransport {
  if ('url' in spec && spec.url !== undefined) {
    const init = spec.headers === undefined ? {} : { requestInit: { headers: { ...spec.headers } } };
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), init);
    const none = () => undefined;
    return { transport, pid: none, spawned: () => false, stderr: () => '', tooLarge: none };
  }
  const stdio = spec as McpStdioServer;
  return OWN_GROUPS ? groupTransport(stdio, maxResultBytes) : sdkTransport(stdio, maxResultBytes);
}

/** Our own stdio transport: the server leads a process group, and a too-large answer fails one call. */
function groupTransport(spec: McpStdioServer, maxResultBytes: number): ServerTransport {
  const transport = new StdioServerProcess(spec, maxResultBytes);
  return watched(transport, transport.stderr, {
    pid: () => transport.pid,
    tooLarge: () => transport.lost,
  });
}

/**
 * The SDK's stdio transport, where process groups are not to be had (Windows): it resolves commands
 * as Windows does (`npx` is `npx.cmd`); a message over its buffer ends the connection, so the calls
 * waiting are `mcp_unavailable`.
 */
function sdkTransport(spec: McpStdioServer, maxResultBytes: number): ServerTransport {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    // Piped, not inherited: a server's chatter stays out of the host's stderr, and its last words say
    // why it stopped.
    stderr: 'pipe',
    maxBufferSize: maxResultBytes,
  });
  return watched(transport, transport.stderr as Readable | null, {
    pid: () => transport.pid ?? undefined,
    tooLarge: () => undefined,
  });
}

/** A stdio transport noting whether its process spawned, and the end of what it wrote to stderr. */
function watched(
  transport: Transport,
  stderr: Readable | null,
  about: Pick<ServerTransport, 'pid' | 'tooLarge'>,
): ServerTransport {
  let spawned = false;
  const start = transport.start.bind(transport);
  // Its start resolves once the process spawned; a command that cannot start rejects instead.
  transport.start = () =>
    start().then(() => {
      spawned = true;
    });
  let tail = '';
  stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL);
  });
  return { transport, ...about, spawned: () => spawned, stderr: () => tail.trim() };
}
