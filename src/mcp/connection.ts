import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown, isStatecrewError, McpResultTooLargeError, McpUnavailableError } from '../errors.js';
import type { ToolProgress } from '../types.js';
import { CallDeadline } from './deadline.js';
import type { McpCallResult } from './observation.js';
import type { McpServerConfig } from './options.js';
import { ProgressRoutes } from './progress.js';
import { TOO_LARGE_CODE, type TooLargeData } from './stdio-process.js';
import { createTransport, type ServerTransport } from './transport.js';

/** What statecrew calls itself when it introduces itself to a server. */
const CLIENT_INFO = { name: 'statecrew', version: '1' };

/**
 * One connection to an MCP server: opened with {@link McpConnection.connect}; a connection that
 * closed (the server died) is opened again on the next call, once — if that fails, the call is
 * `mcp_unavailable`. {@link McpConnection.close} ends it for good (the child process stops).
 */
export class McpConnection {
  readonly #config: McpServerConfig;
  #client: Client | undefined;
  #transport: ServerTransport | undefined;
  #closed = false;
  #reconnecting: Promise<void> | undefined;
  readonly #progress = new ProgressRoutes();
  /** Resolves once the current connection's transport closed (its child process exited). */
  #ended: Promise<void> | undefined;

  constructor(config: McpServerConfig) {
    this.#config = config;
  }

  /** The server's name. */
  get server(): string {
    return this.#config.spec.name;
  }

  /** The server's process id while it is connected (a stdio server), for tests and diagnostics. */
  get pid(): number | undefined {
    return this.#client === undefined ? undefined : this.#transport?.pid();
  }

  /** Starts (or reaches) the server and initializes the session, within `connectTimeoutMs`. */
  async connect(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new McpUnavailableError(this.server, 'its connection was closed');
    const transport = createTransport(this.#config.spec, this.#config.maxResultBytes);
    const client = new Client(CLIENT_INFO);
    // Called once the transport closed: for stdio, once the child process exited.
    const ended = new Promise<void>((resolve) => {
      client.onclose = () => {
        if (this.#client === client) this.#client = undefined;
        resolve();
      };
    });
    this.#ended = ended;
    this.#transport = transport;
    this.#client = client;
    this.#progress.listen(client);
    const { connectTimeoutMs } = this.#config;
    try {
      await client.connect(transport.transport, { timeout: connectTimeoutMs, ...signalOption(signal) });
    } catch (error) {
      this.#client = undefined;
      await closed(client, transport.spawned() ? ended : undefined);
      signal?.throwIfAborted();
      throw new McpUnavailableError(this.server, this.#whyConnectFailed(error, transport), error);
    }
    // Closed while it connected: it must not outlive its owner.
    if (this.#closed) await closed(client, ended);
  }

  /** Every tool the server lists (all pages). */
  async listTools(signal?: AbortSignal): Promise<McpTool[]> {
    const client = this.#live();
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#request(() =>
        client.listTools(cursor === undefined ? {} : { cursor }, this.#options(signal)),
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls tool `name` (the server's own name), reconnecting once first if the server had gone. The
   * call carries a progress token: the server's progress notifications go to `onProgress`, and each
   * one gives the call its `callTimeoutMs` again.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (progress: ToolProgress) => void,
  ): Promise<McpCallResult> {
    if (this.#client === undefined && !this.#closed) await this.#reconnect(signal);
    const client = this.#live();
    const deadline = new CallDeadline(this.#config.callTimeoutMs);
    const progressToken = this.#progress.add((progress) => {
      deadline.restart();
      onProgress?.(progress);
    });
    // No limit of the SDK's own: the deadline is the limit, and progress restarts it.
    const options = { signal: AbortSignal.any([signal, deadline.signal]), timeout: NO_LIMIT };
    const request = { name, arguments: args, _meta: { progressToken } };
    try {
      const result = await this.#request(() => client.callTool(request, undefined, options), name);
      this.#checkSize(name, result);
      return result;
    } catch (error) {
      if (!signal.aborted && deadline.signal.aborted)
        throw new McpUnavailableError(
          this.server,
          `it did not answer in time calling tool "${name}" (callTimeoutMs: ${this.#config.callTimeoutMs} ms)`,
          deadline.signal.reason,
        );
      throw error;
    } finally {
      deadline.stop();
      this.#progress.delete(progressToken);
    }
  }

  /** Refuses a result over `maxResultBytes` from a server whose transport did not (over HTTP). */
  #checkSize(tool: string, result: McpCallResult): void {
    if (this.#transport?.spawned() === true) return;
    const limit = this.#config.maxResultBytes;
    const bytes = Buffer.byteLength(JSON.stringify(result) ?? '');
    if (bytes > limit) throw new McpResultTooLargeError(this.server, tool, bytes, limit);
  }

  /** Connects again after the server went; calls that find it gone meanwhile share the attempt. */
  #reconnect(signal: AbortSignal): Promise<void> {
    if (this.#reconnecting === undefined) {
      const attempt = this.connect(signal).catch((error: unknown) => {
        signal.throwIfAborted();
        const why = isStatecrewError(error, 'mcp_unavailable')
          ? String(error.details.reason)
          : describeThrown(error);
        throw new McpUnavailableError(
          this.server,
          `its connection closed and reconnecting failed: ${why}`,
          error,
        );
      });
      this.#reconnecting = attempt.finally(() => {
        this.#reconnecting = undefined;
      });
    }
    return this.#reconnecting;
  }

  /** Ends the connection for good: the child process stops. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) await closed(client, this.#transport?.spawned() ? this.#ended : undefined);
  }

  #live(): Client {
    if (this.#client === undefined)
      throw new McpUnavailableError(
        this.server,
        this.#closed ? 'its connection was closed' : 'it is not connected',
      );
    return this.#client;
  }

  #options(signal: AbortSignal | undefined) {
    return { ...signalOption(signal), timeout: this.#config.connectTimeoutMs };
  }

  /**
   * A request to the server (listing its tools, or calling tool `tool`): a lost connection or a
   * timeout is `mcp_unavailable`, a result too large `mcp_result_too_large`; other errors pass.
   */
  async #request<T>(send: () => Promise<T>, tool?: string): Promise<T> {
    const doing = tool === undefined ? 'listing its tools' : `calling tool "${tool}"`;
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      const tooLarge = error.code === TOO_LARGE_CODE ? sizeOf(error.data) : undefined;
      if (tooLarge !== undefined)
        throw new McpResultTooLargeError(this.server, tool, tooLarge.bytes, tooLarge.limit, error);
      if (error.code === ErrorCode.RequestTimeout)
        throw new McpUnavailableError(
          this.server,
          `it did not answer in time ${doing} (connectTimeoutMs)`,
          error,
        );
      const lost = this.#transport?.tooLarge();
      if (error.code === ErrorCode.ConnectionClosed && lost !== undefined)
        throw new McpResultTooLargeError(this.server, undefined, lost.bytes, lost.limit, error);
      if (error.code === ErrorCode.ConnectionClosed)
        throw new McpUnavailableError(this.server, `its connection closed while ${doing}`, error);
      throw error;
    }
  }

  /** Why connecting failed, in words: the process's last words, a timeout, or the error. */
  #whyConnectFailed(error: unknown, transport: ServerTransport): string {
    const stderr = transport.stderr();
    const timedOut = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
    const what = timedOut
      ? `it did not initialize within ${this.#config.connectTimeoutMs} ms (connectTimeoutMs)`
      : `connecting failed: ${describeThrown(error)}`;
    return stderr === '' ? what : `${what}; it said: ${stderr.split('\n').slice(-3).join(' / ')}`;
  }
}

/** The longest timeout a timer takes: for the SDK, no limit. */
const NO_LIMIT = 2 ** 31 - 1;

/** The size and limit an error standing for a too-large result carries, if it is one. */
function sizeOf(data: unknown): TooLargeData['tooLarge'] | undefined {
  if (typeof data !== 'object' || data === null || !('tooLarge' in data)) return undefined;
  return (data as TooLargeData).tooLarge;
}

/** How long closing waits for a child process to exit after the SDK's own SIGTERM and SIGKILL. */
const EXIT_WAIT_MS = 5000;

/**
 * Closes `client` and waits until its transport closed (`ended`: the child process exited), however
 * the SDK's close went (a failed connect has closed it already, without waiting), within a bound.
 */
async function closed(client: Client, ended: Promise<void> | undefined): Promise<void> {
  await client.close().catch(() => {});
  if (ended === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, EXIT_WAIT_MS);
    timer.unref();
  });
  await Promise.race([ended, bound]);
  clearTimeout(timer);
}

function signalOption(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
