import { InternalError, InvalidOptionError } from '../errors.js';
import type { Tool, ToolSource, ToolSourceSession } from '../types.js';
import {
  checkServerConfig,
  type McpServerConfig,
  type McpServerOptions,
  type McpServerSpec,
} from './options.js';
import { McpSession, openSession } from './session.js';
import { checkKnown } from './tools.js';

/** How a server's session is opened: a connection of its own per run, or a pool's shared one. */
export type SessionOpener = (signal: AbortSignal) => Promise<McpSession>;

/**
 * An MCP server, granted like a tool: `new Agent({ tools: [fs] })` grants every tool it allows, and
 * `fs.tools(['read_text_file'])` a subset. A run connects to it when a task first needs it (once per
 * run, shared by the subsets) and disconnects when the run settles.
 */
export class McpServer implements ToolSource {
  readonly kind = 'tool-source';
  readonly name: string;
  /** The server's description and options, checked. */
  readonly config: McpServerConfig;
  readonly key: object;
  readonly #opener: SessionOpener;
  readonly #subset: readonly string[] | undefined;

  /** Use {@link mcpServer} or a pool's `server(name)`. */
  constructor(config: McpServerConfig, opener: SessionOpener, key: object, subset?: readonly string[]) {
    this.name = config.spec.name;
    this.config = config;
    this.#opener = opener;
    this.key = key;
    this.#subset = subset;
  }

  /** The server's own names of the tools this grant covers; unset: every tool it allows. */
  get subset(): readonly string[] | undefined {
    return this.#subset;
  }

  /** Connects (or, from a pool, reuses the pool's connection). */
  open(signal: AbortSignal): Promise<ToolSourceSession> {
    return this.#opener(signal);
  }

  /** The session's tools this grant covers: all of them, or the subset `tools(names)` named. */
  grant(session: ToolSourceSession): readonly Tool[] {
    if (!(session instanceof McpSession))
      throw new InternalError('McpServer.grant', `A session of another source was given to "${this.name}"`);
    const subset = this.#subset;
    if (subset === undefined) return session.tools;
    checkKnown(
      this.config,
      'tools',
      subset,
      session.granted.map((g) => g.own),
    );
    return session.granted.filter((g) => subset.includes(g.own)).map((g) => g.tool as Tool);
  }

  /**
   * A grant of only these of the server's tools (its own names), sharing the server's connection: a
   * name its `include` or `exclude` rules out is `invalid_option`.
   *
   * @example
   * new Task({ description: 'Read the notes', agent, tools: [fs.tools(['read_text_file'])] });
   */
  tools(names: readonly string[]): McpServer {
    const where = `mcpServer "${this.name}"`;
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
      throw new InvalidOptionError(where, 'tools', 'a list of tool names', names);
    const { include, exclude } = this.config;
    const barred = names.filter(
      (n) => exclude.includes(n) || (include !== undefined && !include.includes(n)),
    );
    if (barred.length > 0)
      throw new InvalidOptionError(where, 'tools', 'tool names its include and exclude allow', barred);
    return new McpServer(this.config, this.#opener, this.key, names);
  }
}

/**
 * Describes an MCP server to grant to agents and tasks: a command started as a child process over
 * stdio, or a streamable HTTP `url`. Its tools are named `<name>_<tool>` (see `prefix`); nothing
 * connects until a run needs it. Bad options are `invalid_option`, naming the option.
 *
 * @example
 * const fs = mcpServer(
 *   { name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'] },
 *   { include: ['read_text_file', 'list_directory'], callTimeoutMs: 30_000 },
 * );
 * const reader = new Agent({ role: 'Reader', llm, tools: [fs] }); // fs_read_text_file, fs_list_directory
 */
export function mcpServer(spec: McpServerSpec, options: McpServerOptions = {}): McpServer {
  const config = checkServerConfig(spec, options);
  const key = {};
  return new McpServer(config, (signal) => openSession(config, signal), key);
}
