import { DuplicateTaskError, InvalidOptionError } from '../../errors.js';
import type { Task } from './task.js';

/** A crew's tasks indexed once, when it is made: their node ids and where each task and id sits. */
export interface CrewIndex {
  /** Each task's node id, by position: its name, else `task-<position from 1>`. */
  readonly nodeIds: readonly string[];
  /** Each task's position in the crew's list, from 0. */
  readonly positions: ReadonlyMap<Task, number>;
  /** Each node id's position (node ids are distinct). */
  readonly byNodeId: ReadonlyMap<string, number>;
}

/**
 * Indexes `tasks`: each one's node id and position, refusing a task listed twice (`invalid_option`)
 * and a node id given to more than one task (`duplicate_task`, naming the one listed first and its
 * positions from 1). The map from node ids is the one a plan finds its tasks by: no second one is made.
 */
export function indexTasks(tasks: readonly Task[]): CrewIndex {
  const nodeIds: string[] = new Array(tasks.length);
  const positions = new Map<Task, number>();
  const byNodeId = new Map<string, number>();
  let repeated: Map<string, number[]> | undefined;
  for (let index = 0; index < tasks.length; index += 1) {
    const task = tasks[index] as Task;
    if (positions.has(task)) {
      throw new InvalidOptionError('Crew', 'tasks', 'distinct Task objects', `task ${index + 1} repeated`);
    }
    const nodeId = task.name ?? `task-${index + 1}`;
    nodeIds[index] = nodeId;
    positions.set(task, index);
    const first = byNodeId.get(nodeId);
    if (first === undefined) byNodeId.set(nodeId, index);
    else {
      repeated ??= new Map();
      repeated.set(nodeId, [...(repeated.get(nodeId) ?? [first + 1]), index + 1]);
    }
  }
  if (repeated !== undefined) {
    // The node id listed first among those repeated.
    const name = [...byNodeId.keys()].find((id) => repeated.has(id)) as string;
    throw new DuplicateTaskError(name, repeated.get(name) as number[]);
  }
  return { nodeIds, positions, byNodeId };
}

const indexes = new WeakMap<object, CrewIndex>();

/** Keeps `index` as the one of `crew` (a crew's tasks never change after it is made). */
export function keepIndex(crew: object, index: CrewIndex): void {
  indexes.set(crew, index);
}

/** The index kept for `crew`, if it was made with one. */
export function indexOf(crew: object): CrewIndex | undefined {
  return indexes.get(crew);
}
