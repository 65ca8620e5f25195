/**
 * What a failed task keeps from running: nothing (`none`), every task after it in list order
 * (`following`), or the tasks that read it, directly or through others (`descendants`).
 */
export type FailureReach = 'none' | 'following' | 'descendants';

/** What a node a process adds besides the tasks stands for; the pictures draw each kind its own way. */
export type ProcessNodeKind = 'manager' | 'synthesis' | 'judge' | 'start' | 'end';

/** A node a process adds to the crew's picture besides the tasks: a manager, a judge, a start marker, … */
export interface ProcessNode {
  /** Its id in the picture, marked with `@` to stand apart from task names (`@manager`). */
  readonly id: string;
  /** What the pictures write on it (also its Mermaid id). */
  readonly label: string;
  readonly kind: ProcessNodeKind;
  /**
   * The node ids of the runs that belong to it (`/^judge:(\d+)$/`); a first group, when the pattern
   * has one, is the run's iteration. Undefined: no run belongs to it (a marker).
   */
  readonly runs?: RegExp | undefined;
}

/** An edge of the crew's picture, between task node ids and the process's own node ids. */
export interface ProcessEdge {
  readonly from: string;
  readonly to: string;
  /** What the edge is drawn with (`allocates`, `YES`). */
  readonly label?: string | undefined;
  /** It goes back to an earlier node (a loop's next iteration). */
  readonly back?: boolean | undefined;
}

/**
 * A process's shape for one plan: the nodes it adds besides the tasks and the edges between them
 * all, in drawing order, and the facts about its runs the pictures, the run view and the CLI need.
 */
export interface ProcessShape {
  /** The process's own nodes, in drawing order. */
  readonly nodes: readonly ProcessNode[];
  readonly edges: readonly ProcessEdge[];
  /** The nodes the run ends with: a crew's summary reads what they give. */
  readonly ends: readonly string[];
  /** What a failed task keeps from running. */
  readonly blocksOnFailure: FailureReach;
  /**
   * The leaf a run's output comes from when the process synthesizes it rather than passing a task's
   * on (`synthesis`: the manager's); undefined when the output is always a task's.
   */
  readonly synthesisLeaf: string | undefined;
  /** The tasks run again and again, as `<task>#<iteration>` runs: there is no fixed list of runs. */
  readonly repeats: boolean;
}

/** An edge from `from` to `to`, drawn with `label` when given, going back when `back`. */
export function shapeEdge(from: string, to: string, label?: string, back?: boolean): ProcessEdge {
  return {
    from,
    to,
    ...(label === undefined ? {} : { label }),
    ...(back === true ? { back } : {}),
  };
}

/** Edges along the task list: `t0 → t1 → …`. */
export function chainShapeEdges(ids: readonly string[]): ProcessEdge[] {
  return ids.slice(1).map((id, i) => shapeEdge(ids[i] as string, id));
}
