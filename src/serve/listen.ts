import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { InvalidOptionError } from '../errors.js';
import type { StatecrewServer } from './server.js';

/** The default time a client has to send a whole request, headers and body: 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The default time an idle connection is kept open for the client's next request: 65 s, longer than
 * the idle limits of clients and proxies (undici's 4 s, a load balancer's 60 s), so a client never
 * sends on a connection the server is closing (Node's own 5 s loses that race to a busy client).
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Options of {@link listen}. */
export interface ListenOptions {
  /** The port; 0 picks a free one. @default 8787 */
  port?: number | undefined;
  /** The address to listen on. @default '127.0.0.1' */
  hostname?: string | undefined;
  /**
   * How long a client has to send a whole request, headers and body, in ms: past it the server
   * answers `408` and closes the connection, so a body shorter than its `Content-Length` does not
   * hold a socket. A response that takes long (an event stream) is not cut. @default 30000
   */
  requestTimeoutMs?: number | undefined;
  /**
   * How long an idle connection stays open for the client's next request, in ms; the server says so
   * in each answer's `Keep-Alive: timeout=…`. @default 65000
   */
  keepAliveTimeoutMs?: number | undefined;
}

/** `ms` when it is a whole number of ms ≥ 1, else an `invalid_option` error naming `option`. */
function wholeMs(option: string, ms: unknown): number {
  if (!Number.isInteger(ms) || (ms as number) < 1) {
    throw new InvalidOptionError('listen', option, 'a whole number of ms ≥ 1', ms);
  }
  return ms as number;
}

/**
 * The Node HTTP server's time limits for a request limit of `ms`: the headers within it too, and
 * connections checked often enough that a late request is answered soon after its limit (Node checks
 * every 30 s unless told).
 */
function timeLimits(ms: unknown): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  const limit = wholeMs('requestTimeoutMs', ms);
  return {
    requestTimeout: limit,
    headersTimeout: limit,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limit / 4))),
  };
}

/** A server listening: its URL and port, and `close`, which stops listening and closes the server. */
export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `server` over HTTP with `@hono/node-server`; resolves once it listens (with the actual port
 * when `port` is 0). A request not received whole within `requestTimeoutMs` gets a `408`; an idle
 * connection stays open `keepAliveTimeoutMs`. `close` stops taking connections, then closes the
 * server (its live runs, its runner, its queue).
 *
 * @example
 * const { url, close } = await listen(createServer({ flows: [refunds], store, token }), { port: 0 });
 */
export function listen(server: StatecrewServer, options: ListenOptions = {}): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const serverOptions = timeLimits(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
    const keepAlive = wholeMs(
      'keepAliveTimeoutMs',
      options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    );
    const settings = { fetch: server.fetch, port: options.port ?? 8787, hostname, serverOptions };
    const http = serve(settings, (info: AddressInfo) => {
      const host = hostname.includes(':') ? `[${hostname}]` : hostname;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        async close() {
          const closed = new Promise<void>((done) => {
            http.close(() => done());
            if ('closeAllConnections' in http) http.closeAllConnections();
          });
          // The runs begin their graceful stop while the connections close.
          await Promise.all([closed, server.close()]);
        },
      });
    });
    if ('keepAliveTimeout' in http) http.keepAliveTimeout = keepAlive;
    http.once('error', reject);
  });
}
