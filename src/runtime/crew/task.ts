import type { ZodType } from 'zod';
import { parseOptions } from '../../options/parse.js';
import type { Tool, ToolSource } from '../../types.js';
import type { Agent } from './agent.js';
import { grantedTools } from './granted-tools.js';
import { type Guardrail, type TaskOptions, type TaskSettings, taskOptionsSchema } from './task-options.js';

export type { Guardrail, GuardrailVerdict, TaskOptions } from './task-options.js';

/**
 * A unit of work for an agent. `context` is public and may be reassigned before a run: it is read at
 * kickoff.
 *
 * @example
 * const research = new Task({ name: 'research', description: 'Research {topic}', expectedOutput: '3 bullets', agent });
 */
export class Task {
  /** Its options as checked, with their defaults: what an option without a field of its own is read from. */
  readonly settings: TaskSettings;
  readonly name: string | undefined;
  readonly description: string;
  readonly expectedOutput: string;
  readonly agent: Agent | undefined;
  context: Task[] | undefined;
  readonly outputSchema: ZodType | undefined;
  readonly guardrail: Guardrail | readonly Guardrail[] | undefined;
  readonly maxRetries: number | undefined;
  /** Delay before the first retry; see {@link TaskOptions.retryDelayMs}. */
  readonly retryDelayMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly tools: readonly Tool[];
  /** The tool sources among its `tools` option (MCP servers), opened by the run that needs them. */
  readonly toolSources: readonly ToolSource[];
  /** Whether a human reviews each output before the task completes; see {@link TaskOptions.humanInput}. */
  readonly humanInput: boolean;
  /** Whether the prompt asks for Markdown; see {@link TaskOptions.markdown}. */
  readonly markdown: boolean;
  /** Where its output is written once it completes; see {@link TaskOptions.outputFile}. */
  readonly outputFile: string | undefined;
  /** Whether a sequential crew goes on while it runs; see {@link TaskOptions.asyncExecution}. */
  readonly asyncExecution: boolean;

  constructor(options: TaskOptions) {
    const given = options as { name?: unknown; description?: unknown } | undefined;
    const where = `Task "${String(given?.name ?? given?.description)}"`;
    const settings = parseOptions(taskOptionsSchema, (o) => (o === 'description' ? 'Task' : where), options);
    this.settings = settings;
    const { tools, sources } = grantedTools(settings.tools);
    this.tools = tools;
    this.toolSources = sources;
    this.humanInput = settings.humanInput;
    this.markdown = settings.markdown;
    this.asyncExecution = settings.asyncExecution;
    this.outputFile = settings.outputFile;
    this.name = settings.name;
    this.description = settings.description;
    this.expectedOutput = settings.expectedOutput;
    this.agent = settings.agent;
    this.context = settings.context;
    this.outputSchema = settings.outputSchema;
    this.guardrail = settings.guardrail;
    this.maxRetries = settings.maxRetries;
    this.retryDelayMs = settings.retryDelayMs;
    this.timeoutMs = settings.timeoutMs;
  }
}
