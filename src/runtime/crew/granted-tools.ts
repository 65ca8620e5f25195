import type { z } from 'zod';
import { isToolSource } from '../../actors/tool-sessions.js';
import { option } from '../../options/option.js';
import type { Tool, ToolSource } from '../../types.js';

/** The `tools` option of agents and tasks: a list of tools, and tool sources (MCP servers) that yield tools. */
export function toolsOption(): z.ZodCustom<readonly (Tool | ToolSource)[], readonly (Tool | ToolSource)[]> {
  return option<readonly (Tool | ToolSource)[]>(
    'a list of tools (defineTool) and tool sources (mcpServer)',
    (list) => Array.isArray(list) && list.every((item) => isToolSource(item) || isTool(item)),
  );
}

/** What a task granted nothing has: shared, so that thousands of tasks keep no empty arrays each. */
const NONE_GRANTED: { tools: readonly Tool[]; sources: readonly ToolSource[] } = Object.freeze({
  tools: Object.freeze([]),
  sources: Object.freeze([]),
});

/** A checked `tools` option split into tools and tool sources. */
export function grantedTools(granted: readonly (Tool | ToolSource)[]): {
  tools: readonly Tool[];
  sources: readonly ToolSource[];
} {
  if (granted.length === 0) return NONE_GRANTED;
  const tools: Tool[] = [];
  const sources: ToolSource[] = [];
  for (const item of granted) {
    if (isToolSource(item)) sources.push(item);
    else tools.push(item);
  }
  return { tools, sources };
}

function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> | null;
  return typeof tool?.name === 'string' && typeof tool.execute === 'function';
}
