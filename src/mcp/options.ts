import { z } from 'zod';
import { InvalidOptionError } from '../errors.js';
import { option } from '../options/option.js';
import { parseOptions } from '../options/parse.js';

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  /** What its tools are named after (`<name>_<tool>`) and what errors call it. */
  name: string;
  /** The program to start (`npx`, `node`, a path). */
  command: string;
  /** @default [] */
  args?: readonly string[] | undefined;
  /** Variables added to the safe default environment (`PATH`, `HOME`, …) the process gets. @default {} */
  env?: Readonly<Record<string, string>> | undefined;
  /** @default this process's working directory */
  cwd?: string | undefined;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServer {
  /** What its tools are named after (`<name>_<tool>`) and what errors call it. */
  name: string;
  /** Its MCP endpoint (`http://localhost:3000/mcp`). */
  url: string;
  /** Headers sent with every request (an `Authorization` token). @default {} */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** Where an MCP server is: a command to start, or a URL. */
export type McpServerSpec = McpStdioServer | McpHttpServer;

const names = () =>
  option<readonly string[]>(
    'a list of strings',
    (list) => Array.isArray(list) && list.every((v) => typeof v === 'string'),
  );
const positive = (what: string) =>
  option<number>(what, (n) => typeof n === 'number' && Number.isInteger(n) && n > 0);
const ms = () => positive('a positive integer of milliseconds');

/** How long a tool call may go without an answer by default: the MCP SDK's own request timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** The largest result taken by default: the MCP SDK's own limit of a stdio message (10 MiB). */
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;

/** The options of `mcpServer(spec, options)`: each option's type, check, default and docs, once. */
export const mcpServerOptionsSchema = z.strictObject({
  /** Only these of the server's own tool names are granted. @default every tool */
  include: names().optional(),
  /** These of the server's own tool names are never granted. @default [] */
  exclude: names().default([]),
  /** What its tools' names start with (`<prefix>_<tool>`); `''`: the server's own names. @default the server's name */
  prefix: option<string>('a string', (p) => typeof p === 'string').optional(),
  /** How long starting and initializing the server may take, in ms (`mcp_unavailable` after). @default 10000 */
  connectTimeoutMs: ms().default(10_000),
  /**
   * How long one tool call may go without an answer, in ms: each progress notification the server
   * sends starts it again (`mcp_unavailable` after); `0`: no limit. @default 60000
   */
  callTimeoutMs: option<number>(
    'a positive integer of milliseconds, or 0 for no limit',
    (n) => typeof n === 'number' && Number.isInteger(n) && n >= 0,
  ).default(DEFAULT_CALL_TIMEOUT_MS),
  /**
   * The largest tool result the server may send, in bytes (a stdio server's message; an HTTP server's
   * result as JSON): a larger one fails the call with `mcp_result_too_large`, not retried. @default 10485760
   */
  maxResultBytes: positive('a positive integer of bytes').default(DEFAULT_MAX_RESULT_BYTES),
});

/** Options of {@link mcpServer}. */
export interface McpServerOptions extends z.input<typeof mcpServerOptionsSchema> {}

/** A server's description and options, checked. */
export interface McpServerConfig {
  spec: McpServerSpec;
  include: readonly string[] | undefined;
  exclude: readonly string[];
  prefix: string;
  connectTimeoutMs: number;
  /** `0`: no limit. */
  callTimeoutMs: number;
  maxResultBytes: number;
}

const SPEC_KEYS = new Set(['name', 'command', 'args', 'env', 'cwd', 'url', 'headers']);

/** Checks what `mcpServer` was given: anything wrong is `invalid_option` naming the option. */
export function checkServerConfig(spec: McpServerSpec, options: McpServerOptions): McpServerConfig {
  if (typeof spec !== 'object' || spec === null)
    throw new InvalidOptionError('mcpServer', 'server', 'an object with a name and a command or url', spec);
  const name: unknown = spec.name;
  if (typeof name !== 'string' || name.trim() === '')
    throw new InvalidOptionError('mcpServer', 'name', 'a non-empty string', name);
  const where = `mcpServer "${name}"`;
  checkKeys(where, spec, SPEC_KEYS);
  const { include, exclude, prefix, ...limits } = parseOptions(mcpServerOptionsSchema, where, options);
  checkTransport(where, spec);
  return { spec, include, exclude, prefix: prefix ?? name, ...limits };
}

/** Refuses a spec that is neither a command nor a URL, or whose fields have the wrong types. */
function checkTransport(where: string, spec: McpServerSpec): void {
  const hasCommand = 'command' in spec && spec.command !== undefined;
  const hasUrl = 'url' in spec && spec.url !== undefined;
  if (hasCommand === hasUrl)
    throw new InvalidOptionError(where, 'command', 'either a command or a url (one of them)', spec);
  if ('url' in spec && hasUrl) {
    if (typeof spec.url !== 'string' || !URL.canParse(spec.url))
      throw new InvalidOptionError(where, 'url', 'an http(s) URL', spec.url);
    if (spec.headers !== undefined) checkStrings(where, 'headers', spec.headers);
    return;
  }
  const stdio = spec as McpStdioServer;
  if (typeof stdio.command !== 'string' || stdio.command === '')
    throw new InvalidOptionError(where, 'command', 'a non-empty string', stdio.command);
  if (stdio.args !== undefined) checkNames(where, 'args', stdio.args);
  if (stdio.env !== undefined) checkStrings(where, 'env', stdio.env);
  if (stdio.cwd !== undefined && typeof stdio.cwd !== 'string')
    throw new InvalidOptionError(where, 'cwd', 'a string', stdio.cwd);
}

function checkKeys(where: string, given: object, known: ReadonlySet<string>): void {
  for (const key of Object.keys(given ?? {})) {
    if (!known.has(key)) throw InvalidOptionError.unknown(where, key, [...known], undefined);
  }
}

function checkNames(where: string, option: string, value: unknown): void {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new InvalidOptionError(where, option, 'a list of strings', value);
}

function checkStrings(where: string, option: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.values(value).some((v) => typeof v !== 'string'))
    throw new InvalidOptionError(where, option, 'an object of string values', value);
}
