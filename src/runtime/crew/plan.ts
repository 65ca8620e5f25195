import { InternalError, UnknownContextTaskError } from '../../errors.js';
import type { Agent } from './agent.js';
import { type CrewIndex, indexOf } from './crew-index.js';
import { interpolate } from './interpolate.js';
import { type OutputFiles, type OutputTarget, outputTarget } from './output-file.js';
import { PlannedById } from './planned-by-id.js';
import type { Task } from './task.js';

/** One task as a run sees it: its node id, position, and text with the run's inputs filled in. */
export interface PlannedTask {
  nodeId: string;
  /** Position in the crew's task list, from 0. */
  index: number;
  task: Task;
  description: string;
  expectedOutput: string;
  /** The task's agent with the inputs interpolated, if it has one. */
  agent: Agent | undefined;
  /** Node ids of the tasks in its `context` list, in list order; undefined when `context` is. */
  contextIds: readonly string[] | undefined;
  /** The same tasks as positions in the crew's list (the plan's `tasks`). */
  contextPositions: readonly number[] | undefined;
  /** Where its output is written once it completes (absolute, inputs filled), if anywhere. */
  outputFile?: OutputTarget | undefined;
}

/** A crew resolved for one run. */
export interface CrewPlan {
  tasks: readonly PlannedTask[];
  byNodeId: ReadonlyMap<string, PlannedTask>;
  /** The crew's agents with the inputs interpolated, in the crew's order. */
  agents: readonly Agent[];
  inputs: Readonly<Record<string, unknown>>;
  goal: string;
}

/** What planning needs of a crew. */
export interface PlanSource {
  readonly tasks: readonly Task[];
  readonly agents: readonly Agent[];
  readonly goal: string;
  nodeIdOf(task: Task): string | undefined;
  /** The position of `task` in `tasks`, if it is one of them. */
  positionOf(task: Task): number | undefined;
  /** Where tasks' output files go. @default the working directory, nothing outside it */
  readonly files?: OutputFiles | undefined;
}

/** How much of a crew {@link planCrew} resolves. */
export interface PlanScope {
  /** Whether output file paths are resolved and checked (a check of the crew's shape alone skips them). @default true */
  outputFiles?: boolean;
}

/**
 * Resolves a crew for one run: reads each task's current `context` list (which names tasks of the
 * crew, else `unknown_context_task`) and interpolates the inputs into descriptions, expected outputs,
 * output file paths (one that leaves the crew's folder is `output_file_failed`; skipped when
 * `scope.outputFiles` is false) and agent personas. The crew's own objects are left untouched.
 */
export function planCrew(
  crew: PlanSource,
  inputs: Readonly<Record<string, unknown>>,
  scope: PlanScope = {},
): CrewPlan {
  const withFiles = scope.outputFiles ?? true;
  const personas = new Map<Agent, Agent>();
  const persona = (agent: Agent): Agent => {
    let resolved = personas.get(agent);
    if (resolved === undefined) {
      resolved = agent.withInputs(inputs);
      personas.set(agent, resolved);
    }
    return resolved;
  };
  const crewIndex = indexOf(crew);
  const nodeIds = crewIndex?.nodeIds ?? crew.tasks.map((task) => crew.nodeIdOf(task) as string);
  const files = crew.files ?? { baseDir: process.cwd(), allowOutsideFiles: false };
  const contexts = new ContextLists(crew, nodeIds);
  const tasks: PlannedTask[] = new Array(crew.tasks.length);
  const byNodeId = crewIndex === undefined ? new Map<string, PlannedTask>() : undefined;
  for (let index = 0; index < tasks.length; index += 1) {
    const task = crew.tasks[index] as Task;
    const nodeId = nodeIds[index] as string;
    const context = contexts.of(nodeId, task.context);
    const planned: PlannedTask = {
      nodeId,
      index,
      task,
      description: interpolate(task.description, inputs),
      expectedOutput: interpolate(task.expectedOutput, inputs),
      agent: task.agent ? persona(task.agent) : undefined,
      contextIds: context?.ids,
      contextPositions: context?.positions,
      outputFile:
        task.outputFile === undefined || !withFiles
          ? undefined
          : outputTarget(nodeId, task.outputFile, inputs, files, task.createDirectory),
    };
    tasks[index] = planned;
    byNodeId?.set(nodeId, planned);
  }
  return {
    tasks,
    byNodeId: byNodeId ?? new PlannedById((crewIndex as CrewIndex).byNodeId, tasks),
    agents: crew.agents.map(persona),
    inputs,
    goal: interpolate(crew.goal, inputs),
  };
}

/** A task's `context` list as positions in the crew's list and as node ids. */
interface ContextList {
  readonly positions: readonly number[];
  readonly ids: readonly string[];
}

/**
 * Resolves the tasks' `context` lists for one plan. A list of one task is shared by every task that
 * reads only that one (100,000 tasks reading one root keep one pair of arrays, not 100,000), and a
 * reference is looked for first where the one before it was, and just after it, before the crew's
 * map: lists name one task many times, or tasks one after another.
 */
class ContextLists {
  readonly #single = new Map<number, ContextList>();
  #last = -1;

  constructor(
    private readonly crew: PlanSource,
    private readonly nodeIds: readonly string[],
  ) {}

  /** The list of task `nodeId`; undefined when its `context` is (`unknown_context_task` for a stranger). */
  of(nodeId: string, context: readonly Task[] | undefined): ContextList | undefined {
    if (context === undefined) return undefined;
    if (context.length === 1) {
      const position = this.#positionOf(nodeId, context[0] as Task);
      let list = this.#single.get(position);
      if (list === undefined) {
        list = { positions: [position], ids: [this.nodeIds[position] as string] };
        this.#single.set(position, list);
      }
      return list;
    }
    const positions = context.map((ref) => this.#positionOf(nodeId, ref));
    return { positions, ids: positions.map((position) => this.nodeIds[position] as string) };
  }

  #positionOf(nodeId: string, ref: Task): number {
    const { tasks } = this.crew;
    const last = this.#last;
    let position: number | undefined;
    if (last >= 0 && tasks[last] === ref) position = last;
    else if (tasks[last + 1] === ref) position = last + 1;
    else position = this.crew.positionOf(ref);
    if (position === undefined) throw new UnknownContextTaskError(nodeId, ref.name ?? ref.description);
    this.#last = position;
    return position;
  }
}

/** Attempts one run of `task` by `agent` may take: `1 + (task.maxRetries ?? agent.maxRetries ?? 2)`. */
export function attemptsFor(task: Task, agent: Agent): number {
  return 1 + (task.maxRetries ?? agent.maxRetries ?? 2);
}

/** The planned task at a position of the crew's list (a supervisor's index), or a clear error. */
export function taskAt(plan: CrewPlan, index: number): PlannedTask {
  const planned = plan.tasks[index];
  if (planned === undefined) throw new InternalError('taskAt', `No task at position ${index}`, { index });
  return planned;
}
