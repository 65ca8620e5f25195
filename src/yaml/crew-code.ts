import type { ZodType } from 'zod';
import { ConfigError, CrewNotPickedError, InvalidOptionError } from '../errors.js';
import type { Agent } from '../runtime/crew/agent.js';
import type { CrewOptions, Manager } from '../runtime/crew/crew-options.js';
import type { Guardrail } from '../runtime/crew/task.js';
import type { Llm, Tool } from '../types.js';

/**
 * What `crew.py`'s `Task(config=..., ...)` sets for one task of `tasks.yaml`, in statecrew's names:
 * each value given wins over the task's YAML key, as the Python argument does in CrewAI.
 */
export interface YamlTaskOptions {
  /** The agent's name in `agents.yaml` (`agent=self.researcher()`). */
  agent?: string | undefined;
  /** Names of the tasks whose outputs it reads (`context=[self.research_task()]`). */
  context?: readonly string[] | undefined;
  /** Its structured output (`output_pydantic=`, `output_json=`): a zod schema, or a `schemas` key. */
  outputSchema?: ZodType | string | undefined;
  /** Its tools (`tools=[...]`): tools, or `tools` keys. */
  tools?: readonly (Tool | string)[] | undefined;
  /** Where its output is written (`output_file=`), beside `tasks.yaml` as the YAML key is. */
  outputFile?: string | undefined;
  /** Whether `outputFile`'s missing folders are made (`create_directory=`). */
  createDirectory?: boolean | undefined;
  /** A guardrail function, a `guardrails` key, or a condition a model judges (`guardrail=`). */
  guardrail?: Guardrail | string | undefined;
  description?: string | undefined;
  expectedOutput?: string | undefined;
  asyncExecution?: boolean | undefined;
  humanInput?: boolean | undefined;
  markdown?: boolean | undefined;
  maxRetries?: number | undefined;
  retryDelayMs?: number | undefined;
  timeoutMs?: number | undefined;
}

/**
 * What `crew.py`'s `Agent(config=..., ...)` sets for one agent of `agents.yaml`, in statecrew's names:
 * each value given wins over the agent's YAML key, as the Python argument does in CrewAI.
 */
export interface YamlAgentOptions {
  /** Its tools (`tools=[SerperDevTool()]`): tools, or `tools` keys. They replace the YAML's `tools:`. */
  tools?: readonly (Tool | string)[] | undefined;
  /** Its model: a model, a `models` key, or a provider string (`llm=`). */
  llm?: Llm | string | undefined;
  /** Whether it may hand work to its coworkers (`allow_delegation=True`). */
  allowDelegation?: boolean | undefined;
  role?: string | undefined;
  goal?: string | undefined;
  backstory?: string | undefined;
  maxIter?: number | undefined;
  maxRetries?: number | undefined;
  retryDelayMs?: number | undefined;
  timeoutMs?: number | undefined;
  maxRpm?: number | undefined;
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
  stream?: boolean | undefined;
  memory?: boolean | undefined;
}

/**
 * One crew over the YAML's agents and tasks, as one `@CrewBase` class of `crew.py` is: the tasks it
 * runs, in the order given, and any option of a `Crew`.
 */
export interface YamlCrewOptions
  extends Omit<CrewOptions, 'agents' | 'tasks' | 'manager' | 'ignoredKeys' | 'baseDir'> {
  /** Names of its tasks in `tasks.yaml`, in run order. */
  tasks: readonly string[];
  /** Names of its agents in `agents.yaml`. @default the agents its tasks name (hierarchical: every agent but the manager) */
  agents?: readonly string[] | undefined;
  /** A hierarchical crew's manager: an agent's name in `agents.yaml`, or a `Manager`. */
  manager?: Manager | string | undefined;
}

/** Checks that `value` is a mapping of names to mappings (`taskOptions`, `agentOptions`, `crews`). */
export function mappingOption<T>(
  option: string,
  value: unknown,
  expected: string,
): Readonly<Record<string, T>> {
  if (value === undefined) return {};
  const valid =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(
      (entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry),
    );
  if (!valid) throw new InvalidOptionError('loadCrew', option, expected, value);
  return value as Readonly<Record<string, T>>;
}

/** `ConfigError` for an option's key that names no task or agent of `file` (`it has: ...`). */
export function checkNames(
  option: string,
  kind: 'task' | 'agent',
  given: Iterable<string>,
  known: readonly string[],
  file: string,
): void {
  for (const name of given) {
    if (known.includes(name)) continue;
    const what = `the ${option} option names ${kind} "${name}", which ${file} does not define (it has: ${known.join(', ')})`;
    throw new ConfigError(file, undefined, what, option);
  }
}

/**
 * The crew `crews` and `crew` pick: the one named, else the only one; `undefined` without `crews`.
 * `ConfigError` for a name `crews` does not hold; `CrewNotPickedError` for several and none named.
 */
export function pickCrew(
  crews: Readonly<Record<string, YamlCrewOptions>>,
  crew: string | undefined,
  file: string,
): { name: string; options: YamlCrewOptions } | undefined {
  const names = Object.keys(crews);
  if (crew === undefined && names.length === 0) return undefined;
  if (crew === undefined && names.length > 1) throw new CrewNotPickedError(names);
  const name = crew ?? (names[0] as string);
  if (!Object.hasOwn(crews, name)) {
    const has = names.length === 0 ? 'none was given' : `it has: ${names.join(', ')}`;
    const what = `the crew option names crew "${name}", which the crews option does not define (${has})`;
    throw new ConfigError(file, undefined, what, 'crew');
  }
  const options = crews[name] as YamlCrewOptions;
  const tasks: unknown = options.tasks;
  if (!Array.isArray(tasks) || tasks.length === 0 || !tasks.every((t) => typeof t === 'string')) {
    throw new InvalidOptionError('loadCrew', `crews.${name}.tasks`, 'a list of task names', tasks);
  }
  return { name, options };
}

/** The agent each task's code gives it: `assign`'s and `taskOptions`' (which must agree). */
export function agentsOfTasks(
  assign: Readonly<Record<string, string>>,
  taskCode: Readonly<Record<string, YamlTaskOptions>>,
  file: string,
): Readonly<Record<string, string>> {
  const agents: Record<string, string> = { ...assign };
  for (const [task, code] of Object.entries(taskCode)) {
    if (code.agent === undefined) continue;
    if (Object.hasOwn(assign, task) && assign[task] !== code.agent) {
      const what = `task "${task}" is given agent "${assign[task]}" by the assign option and agent "${code.agent}" by taskOptions: keep one`;
      throw new ConfigError(file, undefined, what, 'taskOptions');
    }
    agents[task] = code.agent;
  }
  return agents;
}

/** The tasks a picked crew runs, in the order it names them. */
export function chosenTasks<T extends { readonly name: string }>(
  entries: readonly T[],
  names: readonly string[],
  file: string,
  crew: string | undefined,
): T[] {
  checkNames(
    `crews.${crew}.tasks`,
    'task',
    names,
    entries.map((e) => e.name),
    file,
  );
  return names.map((name) => entries.find((e) => e.name === name) as T);
}

/** The manager option: a `Manager`, or an agent of `agents.yaml` named. */
export function managerOption(
  manager: Manager | string | undefined,
  agents: ReadonlyMap<string, Agent>,
  file: string,
): Manager | undefined {
  if (typeof manager !== 'string') return manager;
  checkNames('manager', 'agent', [manager], [...agents.keys()], file);
  return agents.get(manager);
}

/**
 * A crew's agents: the ones it names; else the ones its tasks name (hierarchical: every agent the
 * manager may pick); the manager is never one of them. Without `crews`: every agent of the file.
 */
export function crewMembers(
  agents: ReadonlyMap<string, Agent>,
  crew: {
    readonly name: string | undefined;
    readonly named: readonly string[] | undefined;
    readonly picked: boolean;
    readonly run: readonly { readonly name: string }[];
    readonly assigned: ReadonlyMap<string, Agent>;
  },
  manager: Manager | undefined,
  process: string | undefined,
  file: string,
): Agent[] {
  if (crew.named !== undefined) {
    checkNames(`crews.${crew.name}.agents`, 'agent', crew.named, [...agents.keys()], file);
    return crew.named.map((name) => agents.get(name) as Agent);
  }
  const all = [...agents.values()].filter((agent) => agent !== manager);
  if (!crew.picked || process === 'hierarchical') return all;
  const used = new Set(crew.run.flatMap((task) => crew.assigned.get(task.name) ?? []));
  return all.filter((agent) => used.has(agent));
}
