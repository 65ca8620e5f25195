import type { Tool, ToolSourceSession } from '../types.js';
import { McpConnection } from './connection.js';
import type { McpServerConfig } from './options.js';
import { type GrantedMcpTool, grantedTools } from './tools.js';

/** An open connection to an MCP server and the tools it grants. */
export class McpSession implements ToolSourceSession {
  readonly tools: readonly Tool[];
  /** The granted tools with the server's own names. */
  readonly granted: readonly GrantedMcpTool[];
  readonly connection: McpConnection;
  readonly #close: () => Promise<void>;

  constructor(granted: readonly GrantedMcpTool[], connection: McpConnection, close: () => Promise<void>) {
    this.granted = granted;
    this.tools = granted.map((g) => g.tool as Tool);
    this.connection = connection;
    this.#close = close;
  }

  /** Ends the session (for a pool's server: nothing, the pool ends it). Never rejects. */
  close(): Promise<void> {
    return this.#close().catch(() => {});
  }
}

/** Connects to the server, lists its tools and grants those its options allow; closes again on failure. */
export async function openSession(
  config: McpServerConfig,
  signal: AbortSignal | undefined,
): Promise<McpSession> {
  const connection = new McpConnection(config);
  await connection.connect(signal);
  try {
    const granted = grantedTools(config, await connection.listTools(signal), connection);
    return new McpSession(granted, connection, () => connection.close());
  } catch (error) {
    await connection.close();
    throw error;
  }
}
