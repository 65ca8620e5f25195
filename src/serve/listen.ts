import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { StatecrewServer } from './server.js';

/** Options of {@link listen}. */
export interface ListenOptions {
  /** The port; 0 picks a free one. @default 8787 */
  port?: number | undefined;
  /** The address to listen on. @default '127.0.0.1' */
  hostname?: string | undefined;
}

/** A server listening: its URL and port, and `close`, which stops listening and closes the server. */
export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `server` over HTTP with `@hono/node-server`; resolves once it listens (with the actual port
 * when `port` is 0). `close` stops taking connections, then closes the server (its live runs, its
 * runner, its queue).
 *
 * @example
 * const { url, close } = await listen(createServer({ flows: [refunds], store, token }), { port: 0 });
 */
export function listen(server: StatecrewServer, options: ListenOptions = {}): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const http = serve({ fetch: server.fetch, port: options.port ?? 8787, hostname }, (info: AddressInfo) => {
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
    http.once('error', reject);
  });
}
