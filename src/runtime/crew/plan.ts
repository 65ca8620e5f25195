import { InternalError, UnknownContextTaskError } from '../../errors.js';
import type { Agent } from './agent.js';
import { interpolate } from './interpolate.js';
import { type OutputFiles, type OutputTarget, outputTarget } from './output-file.js';
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
  const nodeIds = crew.tasks.map((task) => crew.nodeIdOf(task) as string);
  const files = crew.files ?? { baseDir: process.cwd(), allowOutsideFiles: false };
  const tasks = crew.tasks.map((task, index): PlannedTask => {
    const nodeId = nodeIds[index] as string;
    const contextPositions = task.context?.map((ref) => {
      const position = crew.positionOf(ref);
      if (position === undefined) throw new UnknownContextTaskError(nodeId, ref.name ?? ref.description);
      return position;
    });
    return {
      nodeId,
      index,
      task,
      description: interpolate(task.description, inputs),
      expectedOutput: interpolate(task.expectedOutput, inputs),
      agent: task.agent ? persona(task.agent) : undefined,
      contextIds: contextPositions?.map((position) => nodeIds[position] as string),
      contextPositions,
      outputFile:
        task.outputFile === undefined || !withFiles
          ? undefined
          : outputTarget(nodeId, task.outputFile, inputs, files, task.createDirectory),
    };
  });
  return {
    tasks,
    byNodeId: new Map(tasks.map((t) => [t.nodeId, t])),
    agents: crew.agents.map(persona),
    inputs,
    goal: interpolate(crew.goal, inputs),
  };
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
