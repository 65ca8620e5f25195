import { z } from 'zod';
import { InvalidOptionError, McpUnavailableError } from '../errors.js';
import { option } from '../options/option.js';
import { parseOptions } from '../options/parse.js';
import { McpServer } from './server.js';
import { type McpSession, openSession } from './session.js';

/** The options of `mcpPool(...)`: each option's type, check and docs, once. */
export const mcpPoolOptionsSchema = z.strictObject({
  /** The servers it holds connections to (from {@link mcpServer}), by their names. */
  servers: option<readonly McpServer[]>('a list of mcpServer(...)', Array.isArray),
});

/** Options of {@link mcpPool}. */
export interface McpPoolOptions extends z.input<typeof mcpPoolOptionsSchema> {}

/**
 * Connections to MCP servers shared across runs, for a long-lived app: each server connects when a
 * run first needs it and stays connected until {@link McpPool.close}; a server that died is
 * reconnected on the next call, once.
 */
export class McpPool {
  readonly #servers = new Map<string, McpServer>();
  readonly #sessions = new Map<string, Promise<McpSession>>();
  /** The open sessions themselves (not the shares runs get), by server name. */
  readonly #live = new Map<string, McpSession>();
  #closed = false;

  /** Use {@link mcpPool}. */
  constructor(servers: readonly McpServer[]) {
    for (const server of servers) {
      if (!(server instanceof McpServer))
        throw new InvalidOptionError('mcpPool', 'servers', 'a list of mcpServer(...)', server);
      if (this.#servers.has(server.name))
        throw new InvalidOptionError('mcpPool', 'servers', 'servers of different names', server.name);
      const key = {};
      const pooled = new McpServer(server.config, () => this.#session(server), key);
      this.#servers.set(server.name, pooled);
    }
  }

  /** Server `name`, to grant like `mcpServer(...)`: its runs share the pool's connection. */
  server(name: string): McpServer {
    const server = this.#servers.get(name);
    if (server === undefined)
      throw new InvalidOptionError(
        'mcpPool',
        'server',
        `one of ${[...this.#servers.keys()].join(', ')}`,
        name,
      );
    return server;
  }

  /** The process id of server `name` while it is connected (a stdio server), for diagnostics. */
  pidOf(name: string): number | undefined {
    return this.#live.get(name)?.connection.pid;
  }

  /** Disconnects every server (their child processes stop); later runs get `mcp_unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#live.clear();
    await Promise.allSettled(sessions.map((s) => s.then((session) => session.connection.close())));
  }

  /** The pool's session of `server`, opened once (again after a failed open); its close does nothing. */
  #session(server: McpServer): Promise<McpSession> {
    if (this.#closed) return Promise.reject(new McpUnavailableError(server.name, 'its pool was closed'));
    let session = this.#sessions.get(server.name);
    if (session === undefined) {
      // Not the run's signal: the connection outlives the run that happened to open it.
      const opened = openSession(server.config, undefined).then((s) => {
        const shared = Object.assign(Object.create(s) as McpSession, { close: () => Promise.resolve() });
        this.#live.set(server.name, s);
        return shared;
      });
      session = opened;
      this.#sessions.set(server.name, opened);
      opened.catch(() => {
        if (this.#sessions.get(server.name) === opened) this.#sessions.delete(server.name);
      });
    }
    return session;
  }
}

/**
 * A pool of MCP server connections shared by every run that grants `pool.server(name)`: create it
 * once, `await pool.close()` when the app stops.
 *
 * @example
 * const pool = mcpPool({ servers: [mcpServer({ name: 'fs', command: 'node', args: ['fs-server.js', '/data'] })] });
 * const reader = new Agent({ role: 'Reader', llm, tools: [pool.server('fs')] });
 * await pool.close();
 */
export function mcpPool(options: McpPoolOptions): McpPool {
  return new McpPool(parseOptions(mcpPoolOptionsSchema, 'mcpPool', options).servers);
}
