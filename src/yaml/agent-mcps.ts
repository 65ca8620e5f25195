import { ConfigError, InternalError, isStatecrewError } from '../errors.js';
import type { McpServerOptions, McpServerSpec } from '../mcp/options.js';
import { checkServerConfig } from '../mcp/options.js';
import type { Tool, ToolSource, ToolSourceSession } from '../types.js';
import { lineOf, type YamlSource } from './yaml-source.js';

/** An entry of an agent's `mcps:` list: a name, a URL, or a server written out. */
export type McpEntry = string | Readonly<Record<string, unknown>>;

/** The keys of a server written out in `mcps:` (snake_case, as the rest of the YAML). */
const INLINE_OPTIONS: Readonly<Record<string, keyof McpServerOptions>> = {
  include: 'include',
  exclude: 'exclude',
  prefix: 'prefix',
  connect_timeout_ms: 'connectTimeoutMs',
  call_timeout_ms: 'callTimeoutMs',
  max_result_bytes: 'maxResultBytes',
};

/**
 * The servers an agent's `mcps:` key grants: a key of loadCrew's `mcps` option; an `http(s)` URL
 * (CrewAI's form; a `#tool` suffix grants that one tool); or a server written out, with a `name` and
 * a `command` (with `args`, `env`, `cwd`) or a `url` (with `headers`). A mistake is a `ConfigError`
 * naming the line.
 */
export function agentMcps(
  source: YamlSource,
  agent: string,
  entries: readonly McpEntry[] | undefined,
  named: Readonly<Record<string, ToolSource>> | undefined,
): ToolSource[] {
  return (entries ?? []).map((entry, index) => {
    const line = lineOf(source, [agent, 'mcps', index]);
    if (typeof entry === 'string') {
      if (named !== undefined && Object.hasOwn(named, entry)) return named[entry] as ToolSource;
      if (/^https?:\/\//i.test(entry)) return checkedSource(source, line, urlServer(entry));
      const keys = Object.keys(named ?? {});
      const has = keys.length === 0 ? 'none was given' : `it has: ${keys.join(', ')}`;
      const what = `agent "${agent}" names MCP server "${entry}", which the mcps option does not define (${has}); a server may also be an http(s) URL, or written out with a name and a command or url`;
      throw new ConfigError(source.file, line, what, 'mcps');
    }
    return checkedSource(source, line, inlineServer(entry));
  });
}

/** A server at a URL, named after its host: `https://mcp.example.com/mcp#search` grants `search` only. */
function urlServer(text: string): [McpServerSpec, McpServerOptions] {
  const [url = text, tool] = text.split('#', 2);
  const name = new URL(url).hostname.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'mcp';
  return [{ name, url }, tool === undefined || tool === '' ? {} : { include: [tool] }];
}

/** A server written out in YAML: its transport keys as `mcpServer` takes them, its options in snake_case. */
function inlineServer(entry: Readonly<Record<string, unknown>>): [McpServerSpec, McpServerOptions] {
  const spec: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    const option = INLINE_OPTIONS[key];
    if (option === undefined) spec[key] = value;
    else options[option] = value;
  }
  return [spec as unknown as McpServerSpec, options as McpServerOptions];
}

/** The checked server as a source that loads the MCP code only when a run opens it. */
function checkedSource(
  source: YamlSource,
  line: number | undefined,
  [spec, options]: [McpServerSpec, McpServerOptions],
): ToolSource {
  try {
    checkServerConfig(spec, options);
  } catch (error) {
    if (!isStatecrewError(error, 'invalid_option')) throw error;
    const what = `an MCP server of mcps: ${error.message.replace(/ \(invalid_option\)$/, '')}`;
    throw new ConfigError(source.file, line, what, 'mcps');
  }
  return new LazyMcpServer(spec, options);
}

/**
 * An MCP server named in YAML: `mcpServer(spec, options)` made when a run first opens it, so that
 * loading a crew (and importing `statecrew`) never loads the MCP SDK.
 */
class LazyMcpServer implements ToolSource {
  readonly kind = 'tool-source';
  readonly name: string;
  readonly key: object = {};
  #server: ToolSource | undefined;

  constructor(
    readonly spec: McpServerSpec,
    readonly options: McpServerOptions,
  ) {
    this.name = spec.name;
  }

  async open(signal: AbortSignal): Promise<ToolSourceSession> {
    if (this.#server === undefined) {
      const { mcpServer } = await import('../mcp/server.js');
      this.#server ??= mcpServer(this.spec, this.options);
    }
    return this.#server.open(signal);
  }

  grant(session: ToolSourceSession): readonly Tool[] {
    if (this.#server === undefined) {
      throw new InternalError(
        'LazyMcpServer.grant',
        `MCP server "${this.name}" was granted before it was opened`,
      );
    }
    return this.#server.grant(session);
  }
}
