import type { Crew } from '../runtime/crew/crew.js';
import type { ChildRound } from '../runtime/flow/coverage.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { CrewOutput } from '../types.js';
import type { RunPath } from './types.js';

/**
 * The path a flow run took: its trail (a child flow's steps by path, from `children`, the rounds its
 * events relayed), each choice as `FlowPath.routes` names it, what it emitted and what failed.
 */
export function flowRunPath(
  flow: Flow<object>,
  out: FlowOutput<object>,
  children: readonly ChildRound[] = [],
): RunPath {
  throw new Error(`flowRunPath is not built yet (${flow.name}, ${out.id}, ${children.length})`);
}

/** The path a crew run took: its completed tasks in order, and those that failed. */
export function crewRunPath(crew: Crew, out: CrewOutput): RunPath {
  throw new Error(`crewRunPath is not built yet (${String(crew.name)}, ${out.status})`);
}
