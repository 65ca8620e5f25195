import { isToolSource } from '../../actors/tool-sessions.js';
import { InvalidOptionError } from '../../errors.js';
import type { Tool, ToolSource } from '../../types.js';

/**
 * An agent's or a task's `tools` option split into tools and tool sources (MCP servers); anything
 * else in it is `invalid_option` naming `where`.
 */
export function grantedTools(
  where: string,
  granted: readonly (Tool | ToolSource)[] | undefined,
): { tools: readonly Tool[]; sources: readonly ToolSource[] } {
  const list: unknown = granted ?? [];
  const expected = 'a list of tools (defineTool) and tool sources (mcpServer)';
  if (!Array.isArray(list)) throw new InvalidOptionError(where, 'tools', expected, granted);
  const tools: Tool[] = [];
  const sources: ToolSource[] = [];
  for (const item of list as unknown[]) {
    if (isToolSource(item)) sources.push(item);
    else if (isTool(item)) tools.push(item);
    else throw new InvalidOptionError(where, 'tools', expected, granted);
  }
  return { tools, sources };
}

function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> | null;
  return typeof tool?.name === 'string' && typeof tool.execute === 'function';
}
