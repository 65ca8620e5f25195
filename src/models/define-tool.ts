import type { ZodType, z } from 'zod';
import { InvalidOptionError } from '../errors.js';
import type { ApprovalCheck, Tool, ToolContext } from '../types.js';

/** What {@link defineTool} takes: the tool's name, what it does, its input schema and its body. */
export interface ToolDefinition<Z extends ZodType> {
  name: string;
  /** What the tool does, as the model reads it. */
  description: string;
  /** The arguments' schema: the model sees it as JSON Schema; arguments that fail it never reach `execute`. */
  input: Z;
  /** Runs the tool on arguments the schema accepted; its result goes back to the model as text. */
  execute(args: z.infer<Z>, context: ToolContext): unknown;
  /**
   * Whether a call waits for a human's approval before it runs (a function decides per call, on
   * arguments the schema accepted): the crew run pauses — it needs a store — until
   * `crew.resume(id, { approvals: { [callId]: { approve: true } | { approve: false, feedback } } })`.
   * @default false
   */
  needsApproval?: boolean | ApprovalCheck<z.infer<Z>> | undefined;
}

/**
 * A tool whose `execute` gets arguments typed from its zod schema. Arguments that fail the schema go
 * back to the model as an error it can correct, never to `execute`.
 *
 * @example
 * const search = defineTool({
 *   name: 'search',
 *   description: 'Search the web',
 *   input: z.object({ query: z.string() }),
 *   execute: async ({ query }) => `results for ${query}`, // query: string
 * });
 */
export function defineTool<Z extends ZodType>(definition: ToolDefinition<Z>): Tool<z.infer<Z>> {
  const where = `defineTool "${String(definition?.name)}"`;
  if (typeof definition?.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(definition.name)) {
    throw new InvalidOptionError(
      'defineTool',
      'name',
      'letters, digits, _ or - (at most 64)',
      definition?.name,
    );
  }
  if (typeof definition.description !== 'string') {
    throw new InvalidOptionError(where, 'description', 'a string', definition.description);
  }
  if (typeof definition.input?.safeParse !== 'function') {
    throw new InvalidOptionError(where, 'input', 'a zod schema', definition.input);
  }
  if (typeof definition.execute !== 'function') {
    throw new InvalidOptionError(where, 'execute', 'a function', definition.execute);
  }
  const { needsApproval } = definition;
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== 'boolean' &&
    typeof needsApproval !== 'function'
  ) {
    throw new InvalidOptionError(
      where,
      'needsApproval',
      'true, false or a function of the call',
      needsApproval,
    );
  }
  const tool: Tool<z.infer<Z>> = {
    name: definition.name,
    description: definition.description,
    parameters: definition.input as ZodType<z.infer<Z>>,
    execute: definition.execute,
  };
  if (needsApproval !== undefined) tool.needsApproval = needsApproval;
  return tool;
}
