import { createPlainMachine, type PlainMachine, type PlainStateConfig } from '../engine/plain-machine.js';
import type { FailureReach } from '../process-shape.js';
import { blockedByFailure } from './failure-reach.js';
import type { CrewPlan } from './plan.js';

/** What a crew's pictures and analysis need: its process's name, its plan and its loop bound. */
export interface CrewShape {
  process: string;
  plan: CrewPlan;
  maxIterations: number;
}

/** What `crew.analyze()` finds. */
export interface CrewAnalysis {
  process: string;
  /** Always true for a crew without a dependency cycle: every process is bounded. */
  terminates: boolean;
  /** A dependency cycle (graph), as node ids along it; undefined when there is none. */
  cycle: string[] | undefined;
  /** Tasks that can never run: those on or after a dependency cycle (graph). */
  unreachable: string[];
  /** The longest chain of tasks that must run one after another. */
  criticalPath: string[];
  /** For each task, the tasks that would be blocked if it failed for good. */
  blockedOnFailure: Record<string, string[]>;
  /**
   * Each way a run can end, once: for the chain processes (sequential, hierarchical, loop) every path
   * of the picture walked from their running supervisor (a hierarchical allocation written
   * `ALLOCATE`: whom the manager picks is not a branch); for graph and parallel crews, one order of
   * the DAG. Each lists the states it passes and its events.
   */
  paths: CrewPath[];
}

/** One way through a crew's control flow. */
export interface CrewPath {
  states: string[];
  events: string[];
  outcome: 'completed' | 'failed';
}

/** A chain supervisor's snapshot, as its picture reads it: its position in its tasks. */
interface ChainSnapshot {
  status: string;
  value: unknown;
  context: { index: number; total: number };
  matches(value: string): boolean;
}

/** The task a chain supervisor's snapshot is at. */
export function chainTask(ids: readonly string[], snapshot: ChainSnapshot): string {
  return ids[snapshot.context.index] ?? '';
}

/**
 * What a chain supervisor's final snapshot is in its picture: `completed` when it ended `done` past
 * its last task, else `failed` (a task failed for good, or an advisor's answer rejected the run).
 */
export function endName(snapshot: ChainSnapshot): 'completed' | 'failed' {
  const { index, total } = snapshot.context;
  return snapshot.value === 'done' && index >= total ? 'completed' : 'failed';
}

/** A sequential supervisor's snapshot in its picture: the task it runs, or how it ended. */
export function chainStateName(ids: readonly string[], snapshot: ChainSnapshot): string {
  return snapshot.status === 'done' ? endName(snapshot) : chainTask(ids, snapshot);
}

/** A region per task, each `waiting → running → completed | failed`, or `waiting → blocked`. */
export function regionsMachine(id: string, ids: readonly string[]): PlainMachine {
  const regions: Record<string, PlainStateConfig> = {};
  for (const task of ids) {
    regions[task] = {
      initial: 'waiting',
      states: {
        waiting: { on: { [`START.${task}`]: 'running', [`BLOCK.${task}`]: 'blocked' } },
        running: { on: { [`SUCCEED.${task}`]: 'completed', [`FAIL.${task}`]: 'failed' } },
        completed: { type: 'final' },
        failed: { type: 'final' },
        blocked: { type: 'final' },
      },
    };
  }
  return createPlainMachine({ id, type: 'parallel', states: regions });
}

/**
 * The analysis of a process without dependency cycles: it terminates, every task is reachable, and
 * a failure blocks what `reach` (the process shape's `blocksOnFailure`) says.
 */
export function acyclicAnalysis(
  shape: CrewShape,
  reach: FailureReach,
  found: Pick<CrewAnalysis, 'criticalPath' | 'paths'>,
): CrewAnalysis {
  const blockedOnFailure = blockedByFailure(shape.plan, reach);
  return {
    process: shape.process,
    terminates: true,
    cycle: undefined,
    unreachable: [],
    blockedOnFailure,
    ...found,
  };
}

/** The analysis of a process that runs its tasks one after another: the critical path is the list. */
export function chainAnalysis(shape: CrewShape, reach: FailureReach, paths: CrewPath[]): CrewAnalysis {
  const criticalPath = shape.plan.tasks.map((t) => t.nodeId);
  return acyclicAnalysis(shape, reach, { criticalPath, paths });
}
