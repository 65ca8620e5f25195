import { type ZodType, z } from 'zod';
import { flag, integer, positive, text } from '../../options/fields.js';
import { option, unchecked } from '../../options/option.js';
import { parseOptions } from '../../options/parse.js';
import type { GuardrailContext, TaskOutput, Tool, ToolSource } from '../../types.js';
import type { Agent } from './agent.js';
import { grantedTools, toolsOption } from './granted-tools.js';

/**
 * What a guardrail says of an output: `{ ok: true }` (or `true`) accepts it, `{ ok: true, value }`
 * accepts it replacing it (a string becomes the raw text, anything else the structured value);
 * `{ ok: false, reason }` (or `false`, or a string: the reason) rejects it.
 */
export type GuardrailVerdict =
  | boolean
  | string
  | { ok: true; value?: unknown }
  | { ok: false; reason: string };

/**
 * Checks a task's output before it is accepted. A rejection fails the attempt (`guardrail_rejected`)
 * and the next attempt is told why; once no attempt remains, `guardrail_failed` names the last reason.
 */
export type Guardrail = (
  output: TaskOutput,
  context: GuardrailContext,
) => GuardrailVerdict | Promise<GuardrailVerdict>;

/** The options of `new Task(...)`: each option's type, check, default and docs, once. */
export const taskOptionsSchema = z.strictObject({
  /** The node id of its runs. @default `task-<position from 1>` */
  name: text().optional(),
  /** What to do; `{placeholders}` are filled from the run's inputs. */
  description: text(),
  /** What a good answer looks like. @default '' */
  expectedOutput: unchecked<string>().default(''),
  /** Who does it; hierarchical crews leave it out and let the manager choose. */
  agent: unchecked<Agent>().optional(),
  /** Tasks whose outputs it reads; see the process for what `undefined` and `[]` mean. */
  context: option<Task[]>('an array of tasks or undefined', Array.isArray).optional(),
  /** Parses the output as JSON and validates it; the result is the task's `structured` output. */
  outputSchema: unchecked<ZodType>().optional(),
  /** A guardrail, or a list applied in order (each sees what the ones before accepted). */
  guardrail: option<Guardrail | readonly Guardrail[]>('a function or a list of functions', (g) =>
    [g].flat().every((one) => typeof one === 'function'),
  ).optional(),
  /** Retries after a failed attempt. @default the agent's `maxRetries`, else 2 */
  maxRetries: integer(0).optional(),
  /**
   * Delay before the first retry, in ms; doubles per attempt, ±20% jitter, capped at 30 s; a provider's
   * retry-after wins. @default 500 (the task's, else the agent's)
   */
  retryDelayMs: integer(0).optional(),
  /** Time limit of one attempt. @default the agent's `timeoutMs`, else none */
  timeoutMs: positive().optional(),
  /**
   * The tools of this task's runs, in place of the agent's own (as in CrewAI, a task's tools take
   * precedence): tools, and tool sources (MCP servers from `statecrew/mcp`, or a subset:
   * `server.tools(['read_file'])`). Empty, the agent's tools are used. The delegation tools and an
   * agent's `results` tool (its `memory`) are kept either way. @default []
   */
  tools: toolsOption().default([]),
  /**
   * A human reviews each output (once its schema and guardrails accepted it) before the task
   * completes: the run pauses (`status: 'paused'`, `pending: [{ kind: 'review', nodeId, output }]`;
   * it needs a store) until `crew.resume(id, { reviews: { [nodeId]: answer } })` approves it, or sends
   * feedback back to the agent for another attempt (counted against `maxRetries`). @default false
   */
  humanInput: flag().default(false),
  /**
   * Asks for the final answer in Markdown: CrewAI's instruction is added to the prompt after the
   * expected output (CrewAI's `markdown`). @default false
   */
  markdown: flag().default(false),
  /**
   * Once the task completes, its output is written to this file (the raw text, or pretty JSON for a
   * structured output); `{placeholders}` are filled from the run's inputs, folders are created, and a
   * relative path resolves against the crew's `baseDir`. A path outside `baseDir` (where it really leads,
   * symbolic links followed) is refused unless the crew allows it (`allowOutsideFiles`); a refused or
   * failed write fails the task (`output_file_failed`).
   * @default none
   */
  outputFile: text().optional(),
  /**
   * Whether the missing folders of `outputFile` are made (CrewAI's `create_directory`); `false`: a
   * missing folder fails the task with `output_file_failed`. @default true
   */
  createDirectory: flag().default(true),
  /**
   * In a sequential crew, the task starts and the crew goes on to the next tasks at once; the first
   * task that is not asynchronous waits for it (and every asynchronous task started since the last
   * one that is not) and reads their outputs (CrewAI's `async_execution`). @default false
   */
  asyncExecution: flag().default(false),
});

/** Options of a {@link Task}. */
export interface TaskOptions extends z.input<typeof taskOptionsSchema> {}

/** A task's options as checked, with their defaults. */
export type TaskSettings = z.output<typeof taskOptionsSchema>;

/** Who a task's `invalid_option` names: `Task "<name, else description>"`. */
function taskWhere(options: TaskOptions | undefined): string {
  const given = options as { name?: unknown; description?: unknown } | undefined;
  return `Task "${String(given?.name ?? given?.description)}"`;
}

/**
 * A unit of work for an agent. `context` is public and may be reassigned before a run: it is read at
 * kickoff.
 *
 * @example
 * const research = new Task({ name: 'research', description: 'Research {topic}', expectedOutput: '3 bullets', agent });
 */
export class Task {
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
  /** Whether `outputFile`'s missing folders are made; see {@link TaskOptions.createDirectory}. */
  readonly createDirectory: boolean;
  /** Whether a sequential crew goes on while it runs; see {@link TaskOptions.asyncExecution}. */
  readonly asyncExecution: boolean;

  constructor(options: TaskOptions) {
    // Its options as checked, with their defaults, each kept in a field of its own: a crew of
    // 100,000 tasks keeps no second copy of them. Who an error names is said only for an error.
    const settings = parseOptions(
      taskOptionsSchema,
      (o) => (o === 'description' ? 'Task' : taskWhere(options)),
      options,
    );
    const { tools, sources } = grantedTools(settings.tools);
    this.tools = tools;
    this.toolSources = sources;
    this.humanInput = settings.humanInput;
    this.markdown = settings.markdown;
    this.asyncExecution = settings.asyncExecution;
    this.outputFile = settings.outputFile;
    this.createDirectory = settings.createDirectory;
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
