import { CycleError } from '../errors.js';
import type { PlannedTask } from './plan.js';

/**
 * Finds a cycle among the tasks' dependencies (their `context` lists), if there is one, as the node
 * ids along it in the direction outputs flow (each reads the one before it), starting from the task
 * listed first. Linear in tasks + edges.
 */
export function findCycle(tasks: readonly PlannedTask[]): string[] | undefined {
  const state = new Map<string, 'open' | 'closed'>();
  const depsOf = new Map(tasks.map((t) => [t.nodeId, t.contextIds ?? []]));
  for (const root of tasks) {
    if (state.has(root.nodeId)) continue;
    const path: string[] = [];
    const stack: { id: string; next: number }[] = [{ id: root.nodeId, next: 0 }];
    state.set(root.nodeId, 'open');
    path.push(root.nodeId);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: number };
      const deps = depsOf.get(top.id) ?? [];
      if (top.next === deps.length) {
        state.set(top.id, 'closed');
        stack.pop();
        path.pop();
        continue;
      }
      const dep = deps[top.next] as string;
      top.next += 1;
      const seen = state.get(dep);
      if (seen === 'open') return startAtFirstListed(path.slice(path.indexOf(dep)).reverse(), tasks);
      if (seen === undefined) {
        state.set(dep, 'open');
        path.push(dep);
        stack.push({ id: dep, next: 0 });
      }
    }
  }
  return undefined;
}

function startAtFirstListed(cycle: string[], tasks: readonly PlannedTask[]): string[] {
  const members = new Set(cycle);
  const first = tasks.find((t) => members.has(t.nodeId))?.nodeId as string;
  const at = cycle.indexOf(first);
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

/** Throws `cycle` naming the tasks on a dependency cycle, if there is one. */
export function assertAcyclic(tasks: readonly PlannedTask[]): void {
  const cycle = findCycle(tasks);
  if (cycle !== undefined) throw new CycleError(cycle);
}

/**
 * The graph process's bookkeeping of which tasks may start: a count of unfinished dependencies per
 * task, a FIFO of ready tasks (roots in list order first) and the number in flight. Every call is
 * O(1) amortized per edge.
 */
export class DagScheduler {
  readonly #pending = new Map<string, number>();
  readonly #dependents = new Map<string, PlannedTask[]>();
  readonly #ready: PlannedTask[] = [];
  #head = 0;
  readonly #blocked = new Set<string>();
  #settled = 0;
  #inFlight = 0;

  constructor(
    private readonly tasks: readonly PlannedTask[],
    private readonly maxConcurrency: number,
  ) {
    for (const task of tasks) {
      const deps = task.contextIds ?? [];
      this.#pending.set(task.nodeId, deps.length);
      for (const dep of deps) {
        const list = this.#dependents.get(dep);
        if (list === undefined) this.#dependents.set(dep, [task]);
        else list.push(task);
      }
      if (deps.length === 0) this.#ready.push(task);
    }
  }

  /** Whether a ready task may start now: one is ready and fewer than `maxConcurrency` run. */
  get canStart(): boolean {
    return this.#head < this.#ready.length && this.#inFlight < this.maxConcurrency;
  }

  get allSettled(): boolean {
    return this.#settled === this.tasks.length;
  }

  /** Node ids of the tasks no other task depends on. */
  leaves(): string[] {
    return this.tasks.filter((t) => !this.#dependents.has(t.nodeId)).map((t) => t.nodeId);
  }

  /** Takes the next ready task, in the order tasks became ready, as started. */
  start(): PlannedTask {
    const task = this.#ready[this.#head];
    if (task === undefined || !this.canStart) throw new Error('No task can start now');
    this.#ready[this.#head] = undefined as unknown as PlannedTask;
    this.#head += 1;
    this.#inFlight += 1;
    return task;
  }

  /** Records a completed task; its dependents whose last dependency this was become ready. */
  completed(nodeId: string): void {
    this.#settled += 1;
    this.#inFlight -= 1;
    for (const dependent of this.#dependents.get(nodeId) ?? []) {
      const left = (this.#pending.get(dependent.nodeId) ?? 0) - 1;
      this.#pending.set(dependent.nodeId, left);
      if (left === 0) this.#ready.push(dependent);
    }
  }

  /** Records a task that failed for good; returns its descendants, now blocked, in discovery order. */
  failed(nodeId: string): string[] {
    this.#settled += 1;
    this.#inFlight -= 1;
    const blocked: string[] = [];
    const queue = [nodeId];
    for (let i = 0; i < queue.length; i += 1) {
      for (const dependent of this.#dependents.get(queue[i] as string) ?? []) {
        if (this.#blocked.has(dependent.nodeId)) continue;
        this.#blocked.add(dependent.nodeId);
        blocked.push(dependent.nodeId);
        queue.push(dependent.nodeId);
      }
    }
    this.#settled += blocked.length;
    return blocked;
  }
}
