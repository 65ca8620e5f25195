import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A server on a transport: `ended` resolves when its client went away; `close` stops it. */
export interface Serving {
  /** Resolves when the client is gone: stdin ended (stdio); never on its own for HTTP. */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

/** Serves `server` over stdio: JSON-RPC lines on `stdin` and `stdout`, until `stdin` ends. */
export async function serveStdio(
  server: McpServer,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<Serving> {
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport(stdin, stdout));
  return {
    ended,
    close: async () => {
      await server.close();
      stdin.destroy();
    },
  };
}

/** The JSON-RPC error a request the transport does not get answers. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** A client's session: its own server and transport, from `initialize` until it ends. */
interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
}

/** The open sessions of one HTTP server, by session id. */
type Sessions = Map<string, Session>;

/**
 * A new session for a POST without a session id: a fresh server and transport, kept under the id the
 * transport gives once `initialize` succeeded (a request that is not `initialize` is refused by the
 * transport, 400, and nothing is kept). Closing the transport — the client's DELETE, or the server
 * stopping — closes the server, which aborts the session's calls in flight.
 */
async function openSession(makeServer: () => McpServer, sessions: Sessions): Promise<Session> {
  const server = makeServer();
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.set(id, { server, transport });
    },
  });
  // Set before connecting: the server chains its own close handler after this one.
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  return { server, transport };
}

/** One request to `/mcp`: to its session's transport, or (no session id) one that opens a session. */
async function handle(
  makeServer: () => McpServer,
  sessions: Sessions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== '/mcp') return refuse(res, 404, 'Not found: the MCP endpoint is /mcp');
  const id = req.headers['mcp-session-id'];
  try {
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (session === undefined) return refuse(res, 404, `Session not found: "${id}" ended or never began`);
      return await session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST')
      return refuse(res, 400, 'Bad request: no Mcp-Session-Id; POST initialize to start a session');
    const session = await openSession(makeServer, sessions);
    await session.transport.handleRequest(req, res);
    if (session.transport.sessionId === undefined) await session.server.close();
  } catch (error) {
    if (!res.headersSent) refuse(res, 500, `Internal error: ${(error as Error).message}`);
  }
}

/**
 * Serves MCP over streamable HTTP at `http://<host>:<port>/mcp`, with sessions: each `initialize`
 * gets a server of its own from `makeServer` and an `Mcp-Session-Id`, so a client's
 * `notifications/cancelled` reaches the call it cancels. A session ends on the client's DELETE;
 * `close` ends them all (aborting their calls in flight) and stops listening. Port 0 takes a free
 * one; `url` says which.
 */
export async function serveHttp(
  makeServer: () => McpServer,
  port: number,
  host = '127.0.0.1',
): Promise<Serving & { url: string }> {
  const sessions: Sessions = new Map();
  const http = createServer((req, res) => {
    void handle(makeServer, sessions, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = http.address() as AddressInfo;
  const close = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map((session) => session.server.close().catch(() => {})));
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  };
  return { url: `http://${host}:${bound}/mcp`, ended: new Promise<void>(() => {}), close };
}
