import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InvalidOptionError } from '../errors.js';
import { parseOptions } from '../options/parse.js';
import { crewInputSchema, flowInputSchema } from '../runtime/input-schema.js';
import { type CallExtra, callServed, type Served } from './serve-call.js';
import { type McpServeOptions, mcpServeOptionsSchema } from './serve-options.js';
import { crewOutputSchema, flowOutputSchema } from './serve-output.js';
import { crewDescription, flowDescription, toolNames } from './serve-schema.js';

export type { ServableFlow, ServedRun } from './serve-call.js';
export type { McpServeOptions } from './serve-options.js';

const WHERE = 'createMcpServer';

/** The served definitions, each with its tool name; `invalid_option` for what is no crew or flow. */
function servedOf(options: McpServeOptions): Served[] {
  const crews = Object.entries(options.crews ?? {});
  const flows = Object.entries(options.flows ?? {});
  for (const [key, crew] of crews) {
    if (typeof crew?.run !== 'function' || !Array.isArray(crew.tasks)) {
      throw new InvalidOptionError(WHERE, `crews.${key}`, 'a Crew', crew);
    }
  }
  for (const [key, flow] of flows) {
    if (typeof flow?.run !== 'function' || typeof flow.definition?.steps !== 'object') {
      throw new InvalidOptionError(WHERE, `flows.${key}`, 'a flow (createFlow)', flow);
    }
  }
  const names = toolNames(
    WHERE,
    [...crews, ...flows].map(([key]) => key),
  );
  const tool = (key: string) => names.get(key) as string;
  return [
    ...crews.map(([key, crew]): Served => ({ kind: 'crew', crew, key, tool: tool(key) })),
    ...flows.map(([key, flow]): Served => ({ kind: 'flow', flow, key, tool: tool(key) })),
  ];
}

/**
 * An MCP server (the SDK's `McpServer`) with one tool per crew and per flow: a crew's tool takes one
 * string per `{placeholder}` of its tasks and agents, a flow's the fields of its zod state (any
 * properties for a free state). Calling a tool runs a kickoff — a durable run with `store` — and
 * returns its result: the crew's `raw` as text with `{ status, executionId, raw, tasks }` as
 * structured content, or the flow's output with `{ status, executionId, state, output, trail }`; a
 * failed run is an `isError` result naming each failure's code; a paused flow run returns what
 * waits (`pending`, `waiting`, and a wait step's `events`) and says how to go on. Every tool has an
 * `outputSchema` its structured content fits, and a description of at most 1,000 characters. A call with a progress token gets `notifications/progress` as nodes
 * settle. Connect it to any SDK transport; keys become tool names (`[A-Za-z0-9_-]`, at most 64
 * characters), and two keys that become the same name are refused (`invalid_option`).
 *
 * @example
 * const server = createMcpServer({ crews: { research: crew }, flows: { refunds }, store: new SqliteStore() });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(given: McpServeOptions = {}): McpServer {
  const options = parseOptions(mcpServeOptionsSchema, WHERE, given);
  const served = servedOf(options);
  const server = new McpServer({ name: options.name, version: options.version });
  const settings = {
    store: options.store,
    signal: options.signal,
    onRun: options.onRun,
    storeHint: options.storeHint,
  };
  for (const item of served) {
    const run = (args: unknown, extra: CallExtra) =>
      callServed(item, (args ?? {}) as Record<string, unknown>, extra, settings);
    if (item.kind === 'crew') {
      const description = crewDescription(item.crew);
      const inputSchema = crewInputSchema(item.crew);
      server.registerTool(item.tool, { description, inputSchema, outputSchema: crewOutputSchema }, run);
    } else {
      const description = flowDescription(item.flow);
      const inputSchema = flowInputSchema(item.flow);
      server.registerTool(item.tool, { description, inputSchema, outputSchema: flowOutputSchema }, run);
    }
  }
  return server;
}
