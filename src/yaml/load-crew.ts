import { basename, dirname, resolve } from 'node:path';
import type { ZodType } from 'zod';
import { ConfigError, InvalidOptionError, MissingAgentError, UnknownProviderError } from '../errors.js';
import { isProviderRegistered, providerPackage } from '../models/providers.js';
import { Agent } from '../runtime/crew/agent.js';
import { Crew, type CrewOptions } from '../runtime/crew/crew.js';
import { modelGuardrail } from '../runtime/crew/model-guardrail.js';
import { type Guardrail, Task } from '../runtime/crew/task.js';
import type { Llm, Tool, ToolSource } from '../types.js';
import { agentMcps } from './agent-mcps.js';
import { providerSpecOf } from './llm-spec.js';
import { type AgentEntry, agentSchema, parseEntry, type TaskEntry, taskSchema } from './schemas.js';
import { isYamlPath, lineOf, readYamlSource, topEntries, type YamlSource } from './yaml-source.js';

/**
 * Options of {@link loadCrew}: the two YAML sources, what the names in them mean, and every other
 * option of a {@link Crew}, passed on as it is.
 */
export interface LoadCrewOptions extends Omit<CrewOptions, 'agents' | 'tasks'> {
  /**
   * The agents, keyed by name: a file path when it is one line ending in `.yaml` or `.yml` (read
   * relative to the working directory), else YAML text, which messages call `agents.yaml`.
   */
  agents: string;
  /** The tasks, keyed by name, in run order: a path or YAML text as for `agents` (`tasks.yaml`). */
  tasks: string;
  /** The model of agents without an `llm:` key. @default none: every agent then needs an `llm:` key */
  llm?: Llm | string | undefined;
  /**
   * Names an `llm:` key may use. An `llm:` value that is no key here but reads `provider:model`
   * (`openai:gpt-4.1-mini`) is a provider string (see `registerProvider`). @default {}
   */
  models?: Readonly<Record<string, Llm | string>> | undefined;
  /** Names a `tools:` list (of an agent or a task) may use. @default {} */
  tools?: Readonly<Record<string, Tool>> | undefined;
  /** Names an `output_schema:` key may use. @default {} */
  schemas?: Readonly<Record<string, ZodType>> | undefined;
  /**
   * Names a `guardrail:` key may use. A `guardrail:` that is no key here is a condition a model
   * judges (CrewAI's text guardrail; see `modelGuardrail`). @default {}
   */
  guardrails?: Readonly<Record<string, Guardrail>> | undefined;
  /**
   * Names an agent's `mcps:` list may use (CrewAI's key): MCP servers from `statecrew/mcp`
   * (`mcpServer(...)`, a pool's `server(name)`). An `mcps:` entry may also be an http(s) URL or a
   * server written out (`name` and `command`/`args` or `url`). @default {}
   */
  mcps?: Readonly<Record<string, ToolSource>> | undefined;
  /**
   * The agent of each task, by name: task name → agent name, as CrewAI's `crew.py` gives it
   * (`Task(config=self.tasks_config['research_task'], agent=self.researcher())` is
   * `assign: { research_task: 'researcher' }`). It wins over the task's `agent:` key, as `agent=`
   * does in `crew.py`. @default {}
   */
  assign?: Readonly<Record<string, string>> | undefined;
}

/** What the names of the YAML files resolve to. */
type Names = Pick<LoadCrewOptions, 'llm' | 'models' | 'tools' | 'schemas' | 'guardrails' | 'mcps'>;

/**
 * A crew defined the CrewAI way: agents keyed by name in `agents.yaml`, tasks keyed by name in
 * `tasks.yaml` (a task's key is its name; file order is list order; `agent:` and `context:` name
 * keys). Strings are kept as YAML gives them, `{placeholders}` included: a kickoff's inputs fill them.
 * Any mistake in the files throws `ConfigError` (`invalid_config`) naming the file, the line and the
 * key; what `Crew` itself refuses (a hierarchical crew without a manager) throws as `Crew` does.
 * Without a `name`, a crew read from files is named after their folder (`my_crew/tasks.yaml`, or
 * CrewAI's `my_crew/config/tasks.yaml`: `my_crew`); one read from YAML text is `crew`.
 *
 * @example
 * const crew = loadCrew({
 *   agents: 'config/agents.yaml',
 *   tasks: 'config/tasks.yaml',
 *   llm: 'openai:gpt-4.1-mini',
 *   tools: { search },
 *   schemas: { report: z.object({ title: z.string() }) },
 * });
 * const out = await crew.kickoff({ inputs: { topic: 'AI agents' } });
 */
export function loadCrew(options: LoadCrewOptions): Crew {
  const { agents, tasks, llm, models, tools, schemas, guardrails, mcps, assign, ...crewOptions } = options;
  const agentsSource = readYamlSource(sourceOption('agents', agents), 'agents.yaml');
  const tasksSource = readYamlSource(sourceOption('tasks', tasks), 'tasks.yaml');
  const names: Names = { llm, models, tools, schemas, guardrails, mcps: mcpsOption(mcps) };
  const agentsByName = buildAgents(agentsSource, names);
  const entries = topEntries(tasksSource, 'task').map(({ name, value }) => ({
    name,
    entry: parseEntry(tasksSource, 'task', name, value, taskSchema),
  }));
  const assigned = assignAgents(entries, assignOption(assign), tasksSource, agentsSource.file, agentsByName);
  if (crewOptions.process !== 'hierarchical')
    requireAgents(entries, assigned, tasksSource, crewOptions.process);
  const taskList = buildTasks(tasksSource, entries, assigned, names);
  // Output files go beside the tasks YAML, wherever the crew runs from (CrewAI writes them in the cwd).
  const baseDir = crewOptions.baseDir ?? (isYamlPath(tasks) ? dirname(resolve(tasks)) : undefined);
  const name = crewOptions.name ?? (isYamlPath(tasks) ? folderName(tasks) : undefined);
  // A task without `context:` reads every earlier output, as CrewAI gives it, unless the options say otherwise.
  const context = crewOptions.context ?? 'all';
  return new Crew({
    ...crewOptions,
    name,
    baseDir,
    context,
    agents: [...agentsByName.values()],
    tasks: taskList,
  });
}

/**
 * The name of the crew whose tasks are at path `tasks`: its folder's, or, for CrewAI's project
 * layout (`my_crew/config/tasks.yaml`), the project folder's.
 */
function folderName(tasks: string): string | undefined {
  const dir = dirname(resolve(tasks));
  const folder = basename(dir) === 'config' ? basename(dirname(dir)) : basename(dir);
  return folder === '' ? undefined : folder;
}

/** A task as read from `tasks.yaml`: its name (key) and its checked entry. */
interface NamedTask {
  readonly name: string;
  readonly entry: TaskEntry;
}

function mcpsOption(mcps: unknown): Readonly<Record<string, ToolSource>> | undefined {
  if (mcps === undefined) return undefined;
  const valid =
    typeof mcps === 'object' &&
    mcps !== null &&
    Object.values(mcps).every((server) => (server as Partial<ToolSource> | null)?.kind === 'tool-source');
  if (!valid) {
    throw new InvalidOptionError(
      'loadCrew',
      'mcps',
      'a mapping of names to MCP servers (mcpServer(...))',
      mcps,
    );
  }
  return mcps as Readonly<Record<string, ToolSource>>;
}

/** An agent's tools: its `tools:` names, then the MCP servers its `mcps:` grants. */
function agentTools(
  source: YamlSource,
  name: string,
  entry: AgentEntry,
  names: Names,
): (Tool | ToolSource)[] | undefined {
  const tools = lookupTools(source, 'agent', name, entry.tools, names.tools);
  if (entry.mcps === undefined) return tools;
  return [...(tools ?? []), ...agentMcps(source, name, entry.mcps, names.mcps)];
}

function assignOption(assign: unknown): Readonly<Record<string, string>> {
  if (assign === undefined) return {};
  const valid =
    typeof assign === 'object' &&
    assign !== null &&
    !Array.isArray(assign) &&
    Object.values(assign).every((agent) => typeof agent === 'string');
  if (!valid) {
    throw new InvalidOptionError('loadCrew', 'assign', 'a mapping of task names to agent names', assign);
  }
  return assign as Readonly<Record<string, string>>;
}

/**
 * The agent of each task: `assign`'s, else the `agent:` key's. A name either of them gives that the
 * files do not define is a `ConfigError`.
 */
function assignAgents(
  tasks: readonly NamedTask[],
  assign: Readonly<Record<string, string>>,
  source: YamlSource,
  agentsFile: string,
  agents: ReadonlyMap<string, Agent>,
): Map<string, Agent> {
  const known = new Set(tasks.map((t) => t.name));
  for (const [task, agent] of Object.entries(assign)) {
    if (!known.has(task)) {
      const what = `the assign option names task "${task}", which ${source.file} does not define (it has: ${[...known].join(', ')})`;
      throw new ConfigError(source.file, undefined, what, 'assign');
    }
    if (!agents.has(agent)) {
      const what = `the assign option gives task "${task}" agent "${agent}", which ${agentsFile} does not define (it has: ${[...agents.keys()].join(', ')})`;
      throw new ConfigError(source.file, lineOf(source, [task], 'key'), what, 'assign');
    }
  }
  const assigned = new Map<string, Agent>();
  for (const { name, entry } of tasks) {
    const agentName = Object.hasOwn(assign, name) ? assign[name] : entry.agent;
    if (agentName === undefined) continue;
    const agent = agents.get(agentName);
    if (agent === undefined) {
      const what = `task "${name}" names agent "${agentName}", which ${agentsFile} does not define`;
      throw new ConfigError(source.file, lineOf(source, [name, 'agent']), what, 'agent');
    }
    assigned.set(name, agent);
  }
  return assigned;
}

/** `missing_agent` naming the file and line of the first task no agent was given to. */
function requireAgents(
  tasks: readonly NamedTask[],
  assigned: ReadonlyMap<string, Agent>,
  source: YamlSource,
  process: string | undefined,
): void {
  const task = tasks.find((t) => !assigned.has(t.name));
  if (task === undefined) return;
  const where = { file: source.file, line: lineOf(source, [task.name], 'key') };
  throw new MissingAgentError(task.name, process ?? 'sequential', where);
}

function sourceOption(option: 'agents' | 'tasks', value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionError('loadCrew', option, 'a file path or YAML text', value);
  }
  return value;
}

/**
 * An agent's value of a key CrewAI names otherwise (`max_retry_limit` for `max_retries`): either
 * name, not both.
 */
function oneOf(
  source: YamlSource,
  name: string,
  entry: AgentEntry,
  key: 'max_retries' | 'timeout_ms',
  crewaiKey: 'max_retry_limit' | 'max_execution_time',
): number | undefined {
  if (entry[key] !== undefined && entry[crewaiKey] !== undefined) {
    const what = `agent "${name}" sets both ${key} and ${crewaiKey} (CrewAI's name for it): keep one`;
    throw new ConfigError(source.file, lineOf(source, [name, crewaiKey], 'key'), what, crewaiKey);
  }
  return entry[key] ?? entry[crewaiKey];
}

/** An agent's time limit: `timeout_ms`, or CrewAI's `max_execution_time` (seconds). */
function agentTimeoutMs(source: YamlSource, name: string, entry: AgentEntry): number | undefined {
  const value = oneOf(source, name, entry, 'timeout_ms', 'max_execution_time');
  return entry.max_execution_time === undefined ? value : (value as number) * 1000;
}

function buildAgents(source: YamlSource, names: Names): Map<string, Agent> {
  const agents = new Map<string, Agent>();
  for (const { name, value } of topEntries(source, 'agent')) {
    const entry: AgentEntry = parseEntry(source, 'agent', name, value, agentSchema);
    // Checked as llm is, and not called: statecrew's agents call tools through their llm.
    const toolModel = entry.function_calling_llm;
    if (toolModel !== undefined) namedModel(source, name, 'function_calling_llm', toolModel, names);
    agents.set(
      name,
      new Agent({
        // A role names the agent (a hierarchical manager answers with it): the newline a folded
        // scalar (`role: >`, CrewAI's own template) ends with is not part of the name.
        role: entry.role.trimEnd(),
        goal: entry.goal,
        backstory: entry.backstory,
        llm: agentLlm(source, name, entry.llm, names),
        tools: agentTools(source, name, entry, names),
        maxIter: entry.max_iter,
        maxRetries: oneOf(source, name, entry, 'max_retries', 'max_retry_limit'),
        retryDelayMs: entry.retry_delay_ms,
        timeoutMs: agentTimeoutMs(source, name, entry),
        maxRpm: entry.max_rpm,
        temperature: entry.temperature,
        maxOutputTokens: entry.max_output_tokens,
        stream: entry.stream,
        allowDelegation: entry.allow_delegation,
        // `verbose` is accepted and left out: a run's events (the CLI's live view) are its verbose output.
        memory: entry.memory,
      }),
    );
  }
  return agents;
}

function buildTasks(
  source: YamlSource,
  entries: readonly NamedTask[],
  agents: ReadonlyMap<string, Agent>,
  names: Names,
): Task[] {
  const tasks = new Map<string, Task>();
  for (const { name, entry } of entries) {
    const agent = agents.get(name);
    const schema = entry.output_schema;
    const outputSchema = schema === undefined ? undefined : named(names.schemas, schema);
    if (schema !== undefined && outputSchema === undefined) {
      const what = `task "${name}" names output schema "${schema}", which the schemas option ${defines(names.schemas)}`;
      throw new ConfigError(source.file, lineOf(source, [name, 'output_schema']), what, 'output_schema');
    }
    const task = new Task({
      name,
      description: entry.description,
      expectedOutput: entry.expected_output,
      agent,
      outputSchema,
      tools: lookupTools(source, 'task', name, entry.tools, names.tools),
      maxRetries: entry.max_retries,
      retryDelayMs: entry.retry_delay_ms,
      timeoutMs: entry.timeout_ms,
      humanInput: entry.human_input,
      markdown: entry.markdown,
      outputFile: entry.output_file,
      asyncExecution: entry.async_execution,
      guardrail: taskGuardrail(entry.guardrail, names),
    });
    tasks.set(name, task);
  }
  // Contexts are resolved once every task exists: a graph crew's context may name a later task.
  for (const { name, entry } of entries) {
    if (entry.context === undefined) continue;
    (tasks.get(name) as Task).context = entry.context.map((ref, index) => {
      const task = tasks.get(ref);
      if (task !== undefined) return task;
      const what = `task "${name}" names context task "${ref}", which ${source.file} does not define`;
      throw new ConfigError(source.file, lineOf(source, [name, 'context', index]), what, 'context');
    });
  }
  return [...tasks.values()];
}

function agentLlm(source: YamlSource, name: string, llm: string | undefined, names: Names): Llm | string {
  if (llm === undefined) {
    if (names.llm !== undefined) return names.llm;
    const what = `agent "${name}" has no llm: give it an llm key or pass loadCrew's llm option`;
    throw new ConfigError(source.file, lineOf(source, [name], 'key'), what, 'llm');
  }
  return namedModel(source, name, 'llm', llm, names);
}

/** The model an agent's `llm:` (or `function_calling_llm:`) key names: a models key, else a provider. */
function namedModel(
  source: YamlSource,
  name: string,
  key: 'llm' | 'function_calling_llm',
  llm: string,
  names: Names,
): Llm | string {
  const model = named(names.models, llm);
  if (model !== undefined) return model;
  const provider = providerSpecOf(llm);
  if (provider === undefined) {
    const what = `agent "${name}" names model "${llm}", which the models option ${defines(names.models)}; a provider string reads like "openai:gpt-4.1-mini" (or CrewAI's "openai/gpt-4.1-mini")`;
    throw new ConfigError(source.file, lineOf(source, [name, key]), what, key);
  }
  if (!isProviderRegistered(provider.provider)) {
    const where = { file: source.file, line: lineOf(source, [name, key]) };
    throw new UnknownProviderError(
      provider.spec,
      provider.provider,
      providerPackage(provider.provider),
      where,
    );
  }
  return provider.spec;
}

/** A task's `guardrail:`: a guardrails key's function, else a condition a model judges. */
function taskGuardrail(guardrail: string | undefined, names: Names): Guardrail | undefined {
  if (guardrail === undefined) return undefined;
  return named(names.guardrails, guardrail) ?? modelGuardrail(guardrail);
}

function lookupTools(
  source: YamlSource,
  kind: 'agent' | 'task',
  name: string,
  list: readonly string[] | undefined,
  tools: Names['tools'],
): Tool[] | undefined {
  return list?.map((toolName, index) => {
    const tool = named(tools, toolName);
    if (tool !== undefined) return tool;
    const what = `${kind} "${name}" names tool "${toolName}", which the tools option ${defines(tools)}`;
    throw new ConfigError(source.file, lineOf(source, [name, 'tools', index]), what, 'tools');
  });
}

/** The own entry `name` of `registry` (never an inherited one such as `constructor`). */
function named<T>(registry: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return registry !== undefined && Object.hasOwn(registry, name) ? registry[name] : undefined;
}

function defines(registry: Readonly<Record<string, unknown>> | undefined): string {
  const keys = Object.keys(registry ?? {});
  return keys.length === 0
    ? 'does not define (none was given)'
    : `does not define (it has: ${keys.join(', ')})`;
}
