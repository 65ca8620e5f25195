import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { InvalidOptionError } from '../errors.js';
import type { Tool, ToolContext } from '../types.js';
import type { McpConnection } from './connection.js';
import { grantedName } from './names.js';
import { observationOf } from './observation.js';
import type { McpServerConfig } from './options.js';

/** An MCP tool as statecrew grants it, with the server's own name for it. */
export interface GrantedMcpTool {
  /** The server's name for the tool. */
  own: string;
  tool: Tool<Record<string, unknown>>;
}

/** The error a tool reports when the server answers `isError: true`: an observation, not a failure. */
export class McpToolError extends Error {
  override readonly name = 'McpToolError';
}

const validators = new AjvJsonSchemaValidator();

/**
 * The server's tools that `config` grants (its `include` and `exclude`), as statecrew tools calling
 * through `connection`. A name in `include` or `exclude` that the server does not have is
 * `invalid_option`, naming the option and the tools it has.
 */
export function grantedTools(
  config: McpServerConfig,
  listed: readonly McpTool[],
  connection: McpConnection,
): GrantedMcpTool[] {
  const own = listed.map((t) => t.name);
  checkKnown(config, 'include', config.include, own);
  checkKnown(config, 'exclude', config.exclude, own);
  const include = config.include === undefined ? undefined : new Set(config.include);
  const exclude = new Set(config.exclude);
  return listed
    .filter((t) => (include === undefined || include.has(t.name)) && !exclude.has(t.name))
    .map((t) => ({ own: t.name, tool: mcpTool(config, t, connection) }));
}

/** Refuses tool names the server does not have. */
export function checkKnown(
  config: McpServerConfig,
  option: string,
  names: readonly string[] | undefined,
  own: readonly string[],
): void {
  const unknown = (names ?? []).filter((name) => !own.includes(name));
  if (unknown.length === 0) return;
  const where = `mcpServer "${config.spec.name}"`;
  const listed = unknown.map((name) => `"${name}"`).join(', ');
  throw new InvalidOptionError(where, option, "names of the server's tools", unknown, {
    message: `${where}: option "${option}" names tools the server does not have: ${listed} (it has ${own.join(', ')})`,
  });
}

/** One server tool as a statecrew tool: its schema checks the arguments, its result is an observation. */
function mcpTool(
  config: McpServerConfig,
  listed: McpTool,
  connection: McpConnection,
): Tool<Record<string, unknown>> {
  const inputSchema = listed.inputSchema as Record<string, unknown>;
  const validate = validatorOf(inputSchema);
  return {
    name: grantedName(config.prefix, listed.name),
    description: listed.description ?? listed.title ?? listed.name,
    inputSchema,
    async execute(args: Record<string, unknown>, context: ToolContext): Promise<string> {
      const checked = validate?.(args ?? {});
      if (checked !== undefined && !checked.valid)
        throw new Error(`invalid arguments: ${checked.errorMessage}`);
      const result = await connection.call(listed.name, args ?? {}, context.signal, context.onProgress);
      const text = observationOf(result);
      if (result.isError === true)
        throw new McpToolError(`MCP server "${config.spec.name}" reported an error: ${text}`);
      return text;
    },
  };
}

/** The schema's validator; none when the validator cannot read the schema (the server checks it). */
function validatorOf(schema: Record<string, unknown>): JsonSchemaValidator<unknown> | undefined {
  try {
    return validators.getValidator(schema as JsonSchemaType);
  } catch {
    return undefined;
  }
}
