import type { ZodType } from 'zod';
import { InvalidOptionError } from '../../errors.js';
import type { GuardrailContext, TaskOutput, Tool, ToolSource } from '../../types.js';
import { optionalInteger, optionalPositive, requiredText } from '../engine/validate.js';
import type { Agent } from './agent.js';
import { grantedTools } from './granted-tools.js';
import { checkOptionKeys, TASK_OPTIONS } from './option-keys.js';

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

/** Options of a {@link Task}. */
export interface TaskOptions {
  /** The node id of its runs. @default `task-<position from 1>` */
  name?: string | undefined;
  /** What to do; `{placeholders}` are filled from the run's inputs. */
  description: string;
  /** What a good answer looks like. @default '' */
  expectedOutput?: string | undefined;
  /** Who does it; hierarchical crews leave it out and let the manager choose. */
  agent?: Agent | undefined;
  /** Tasks whose outputs it reads; see the process for what `undefined` and `[]` mean. */
  context?: Task[] | undefined;
  /** Parses the output as JSON and validates it; the result is the task's `structured` output. */
  outputSchema?: ZodType | undefined;
  /** A guardrail, or a list applied in order (each sees what the ones before accepted). */
  guardrail?: Guardrail | readonly Guardrail[] | undefined;
  /** Retries after a failed attempt. @default the agent's `maxRetries`, else 2 */
  maxRetries?: number | undefined;
  /**
   * Delay before the first retry, in ms; doubles per attempt, ±20% jitter, capped at 30 s; a provider's
   * retry-after wins. @default 500 (the task's, else the agent's)
   */
  retryDelayMs?: number | undefined;
  /** Time limit of one attempt. @default the agent's `timeoutMs`, else none */
  timeoutMs?: number | undefined;
  /**
   * Tools granted to this task's runs besides the agent's own (one with the name of an agent's tool
   * replaces it for this task), and tool sources (MCP servers from `statecrew/mcp`, or a subset:
   * `server.tools(['read_file'])`). @default []
   */
  tools?: readonly (Tool | ToolSource)[] | undefined;
  /**
   * A human reviews each output (once its schema and guardrails accepted it) before the task
   * completes: the run pauses (`status: 'paused'`, `pending: [{ kind: 'review', nodeId, output }]`;
   * it needs a store) until `crew.resume(id, { reviews: { [nodeId]: answer } })` approves it, or sends
   * feedback back to the agent for another attempt (counted against `maxRetries`). @default false
   */
  humanInput?: boolean | undefined;
  /**
   * Asks for the final answer in Markdown: CrewAI's instruction is added to the prompt after the
   * expected output (CrewAI's `markdown`). @default false
   */
  markdown?: boolean | undefined;
  /**
   * Once the task completes, its output is written to this file (the raw text, or pretty JSON for a
   * structured output); `{placeholders}` are filled from the run's inputs, folders are created, and a
   * relative path resolves against the crew's `baseDir`. A path outside `baseDir` is refused unless the
   * crew allows it (`allowOutsideFiles`); a refused or failed write fails the task (`output_file_failed`).
   * @default none
   */
  outputFile?: string | undefined;
  /**
   * In a sequential crew, the task starts and the crew goes on to the next tasks at once; the first
   * task that is not asynchronous waits for it (and every asynchronous task started since the last
   * one that is not) and reads their outputs (CrewAI's `async_execution`). @default false
   */
  asyncExecution?: boolean | undefined;
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
  /** Whether a sequential crew goes on while it runs; see {@link TaskOptions.asyncExecution}. */
  readonly asyncExecution: boolean;

  constructor(options: TaskOptions) {
    const where = `Task "${options.name ?? options.description}"`;
    checkOptionKeys(where, options, TASK_OPTIONS);
    requiredText('Task', 'description', options.description);
    if (options.name !== undefined) requiredText(where, 'name', options.name);
    if (options.context !== undefined && !Array.isArray(options.context)) {
      throw new InvalidOptionError(where, 'context', 'an array of tasks or undefined', options.context);
    }
    optionalInteger(where, 'maxRetries', options.maxRetries, 0);
    optionalInteger(where, 'retryDelayMs', options.retryDelayMs, 0);
    optionalPositive(where, 'timeoutMs', options.timeoutMs);
    const guards = options.guardrail === undefined ? [] : [options.guardrail].flat();
    if (guards.some((g) => typeof g !== 'function')) {
      throw new InvalidOptionError(
        where,
        'guardrail',
        'a function or a list of functions',
        options.guardrail,
      );
    }
    const { tools, sources } = grantedTools(where, options.tools);
    this.tools = tools;
    this.toolSources = sources;
    if (options.humanInput !== undefined && typeof options.humanInput !== 'boolean') {
      throw new InvalidOptionError(where, 'humanInput', 'true or false', options.humanInput);
    }
    this.humanInput = options.humanInput ?? false;
    this.markdown = optionalFlag(where, 'markdown', options.markdown);
    this.asyncExecution = optionalFlag(where, 'asyncExecution', options.asyncExecution);
    if (options.outputFile !== undefined) requiredText(where, 'outputFile', options.outputFile);
    this.outputFile = options.outputFile;
    this.name = options.name;
    this.description = options.description;
    this.expectedOutput = options.expectedOutput ?? '';
    this.agent = options.agent;
    this.context = options.context;
    this.outputSchema = options.outputSchema;
    this.guardrail = options.guardrail;
    this.maxRetries = options.maxRetries;
    this.retryDelayMs = options.retryDelayMs;
    this.timeoutMs = options.timeoutMs;
  }
}

/** A boolean option, false when unset; anything else than true or false is `invalid_option`. */
function optionalFlag(where: string, option: string, value: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InvalidOptionError(where, option, 'true or false', value);
  }
  return value === true;
}
