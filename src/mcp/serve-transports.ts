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

/** The JSON-RPC error a request outside `POST /mcp` gets. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** One stateless request: a fresh server and transport, closed when the response is. */
async function handle(makeServer: () => McpServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== '/mcp') return refuse(res, 404, 'Not found: the MCP endpoint is /mcp');
  if (req.method !== 'POST') return refuse(res, 405, 'Method not allowed: this server is stateless');
  const server = makeServer();
  // No session id generator: stateless, each request stands alone.
  const transport = new StreamableHTTPServerTransport({});
  res.on('close', () => {
    void transport.close().catch(() => {});
    void server.close().catch(() => {});
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (error) {
    if (!res.headersSent) refuse(res, 500, `Internal error: ${(error as Error).message}`);
  }
}

/**
 * Serves MCP over streamable HTTP at `http://<host>:<port>/mcp`, statelessly: each request gets a
 * server from `makeServer`. Port 0 takes a free one; `url` says which.
 */
export async function serveHttp(
  makeServer: () => McpServer,
  port: number,
  host = '127.0.0.1',
): Promise<Serving & { url: string }> {
  const http = createServer((req, res) => {
    void handle(makeServer, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = http.address() as AddressInfo;
  return {
    url: `http://${host}:${bound}/mcp`,
    ended: new Promise<void>(() => {}),
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
