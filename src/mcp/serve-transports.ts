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
  /** Its requests whose responses are still open (a call in flight, the client's event stream). */
  open: number;
  /** When its last response closed, on the server's clock. */
  lastUsed: number;
}

/** The sessions of one HTTP server, and what ends an idle one. */
interface Sessions {
  byId: Map<string, Session>;
  idleMs: number;
  now: () => number;
}

/**
 * Ends the sessions idle for more than `idleMs`: none of their responses open (no call in flight, no
 * event stream) since then — a client that went away without its DELETE.
 */
function endIdle(sessions: Sessions): void {
  const now = sessions.now();
  for (const [id, session] of sessions.byId) {
    if (session.open > 0 || now - session.lastUsed <= sessions.idleMs) continue;
    sessions.byId.delete(id);
    void session.server.close().catch(() => {});
  }
}

/**
 * A new session for a POST without a session id: a fresh server and transport, kept under the id the
 * transport gives once `initialize` succeeded (a request that is not `initialize` is refused by the
 * transport, 400, and nothing is kept). Closing the transport — the client's DELETE, the session
 * idling out, or the server stopping — closes the server, which aborts the session's calls in flight.
 */
async function openSession(makeServer: () => McpServer, sessions: Sessions): Promise<Session> {
  endIdle(sessions);
  const server = makeServer();
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.byId.set(id, session);
    },
  });
  const session: Session = { server, transport, open: 0, lastUsed: sessions.now() };
  // Set before connecting: the server chains its own close handler after this one.
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.byId.delete(transport.sessionId);
  };
  await server.connect(transport);
  return session;
}

/** Counts `res` as open for `session` until it closes. */
function track(session: Session, res: ServerResponse, now: () => number): void {
  session.open += 1;
  res.once('close', () => {
    session.open -= 1;
    session.lastUsed = now();
  });
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
      const session = sessions.byId.get(id);
      if (session === undefined) return refuse(res, 404, `Session not found: "${id}" ended or never began`);
      track(session, res, sessions.now);
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

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /** The address to listen on. @default '127.0.0.1' */
  host?: string;
  /** A session none of whose responses was open for this long ends. @default 3_600_000 (an hour) */
  sessionIdleMs?: number;
  /** The clock idle sessions are measured by, in epoch ms. @default Date.now */
  now?: () => number;
}

/**
 * Serves MCP over streamable HTTP at `http://<host>:<port>/mcp`, with sessions: each `initialize`
 * gets a server of its own from `makeServer` and an `Mcp-Session-Id`, so a client's
 * `notifications/cancelled` reaches the call it cancels. A session ends on the client's DELETE, or
 * once idle for `sessionIdleMs` (checked as a new session opens); `close` ends them all (aborting
 * their calls in flight) and stops listening. Port 0 takes a free one; `url` says which.
 */
export async function serveHttp(
  makeServer: () => McpServer,
  port: number,
  options: ServeHttpOptions = {},
): Promise<Serving & { url: string }> {
  const host = options.host ?? '127.0.0.1';
  const sessions: Sessions = {
    byId: new Map(),
    idleMs: options.sessionIdleMs ?? 3_600_000,
    now: options.now ?? Date.now,
  };
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
    const open = [...sessions.byId.values()];
    sessions.byId.clear();
    await Promise.all(open.map((session) => session.server.close().catch(() => {})));
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  };
  return { url: `http://${host}:${bound}/mcp`, ended: new Promise<void>(() => {}), close };
}
