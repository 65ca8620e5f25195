import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerSpec, McpStdioServer } from './options.js';

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
}

/** A new transport to `spec`: a child process over stdio, or streamable HTTP. */
export function createTransport(spec: McpServerSpec): ServerTransport {
  if ('url' in spec && spec.url !== undefined) {
    const init = spec.headers === undefined ? {} : { requestInit: { headers: { ...spec.headers } } };
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), init);
    return { transport, pid: () => undefined, spawned: () => false, stderr: () => '' };
  }
  return stdioTransport(spec as McpStdioServer);
}

function stdioTransport(spec: McpStdioServer): ServerTransport {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    // Piped, not inherited: a server's chatter stays out of the host's stderr, and its last words say
    // why it stopped.
    stderr: 'pipe',
  });
  let spawned = false;
  const start = transport.start.bind(transport);
  // Its start resolves once the process spawned; a command that cannot start rejects instead.
  transport.start = () =>
    start().then(() => {
      spawned = true;
    });
  let tail = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL);
  });
  return {
    transport,
    pid: () => transport.pid ?? undefined,
    spawned: () => spawned,
    stderr: () => tail.trim(),
  };
}
