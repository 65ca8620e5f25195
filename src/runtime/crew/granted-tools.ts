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

/** A checked `tools` option split into tools and tool sources. */
export function grantedTools(granted: readonly (Tool | ToolSource)[]): {
  tools: readonly Tool[];
  sources: readonly ToolSource[];
} {
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
