import { InvalidOptionError } from '../../errors.js';
import type { CrewPlan, PlannedTask } from '../crew/plan.js';
import type { Task } from '../crew/task.js';
import type { CrewRunScope, SupervisorSetup } from '../process.js';
import { CREWAI_CONTEXT_DIVIDER, chainSummary } from './chain.js';
import { dagSupervisor } from './graph.js';

/**
 * A sequential crew with asynchronous tasks, compiled into dependencies (CrewAI's `_execute_tasks`):
 * an asynchronous task starts once the last task before it that is not asynchronous completed, and
 * the crew goes on at once; a task that is not asynchronous also waits for every asynchronous task
 * started since that one. Each planned task's `contextIds`/`contextPositions` are its dependencies;
 * `reads` is what each task reads as its context, by node id.
 */
export interface AsyncChain {
  readonly tasks: readonly PlannedTask[];
  readonly byNodeId: ReadonlyMap<string, PlannedTask>;
  readonly reads: ReadonlyMap<string, readonly string[]>;
}

/** Whether any task of the plan is asynchronous (only then is a sequential crew compiled). */
export function hasAsyncTasks(plan: CrewPlan): boolean {
  return plan.tasks.some((t) => t.task.asyncExecution);
}

/**
 * Compiles `plan` into dependencies. What a task reads when its `context` is unset: an asynchronous
 * task, the last task before it that is not asynchronous; a task that is not, the asynchronous tasks it
 * waits for, in list order (else the task before it, as in any sequential crew).
 */
export function compileAsyncChain(plan: CrewPlan): AsyncChain {
  const ids = plan.tasks.map((t) => t.nodeId);
  const reads = new Map<string, readonly string[]>();
  let lastSync: number | undefined;
  let started: number[] = [];
  const tasks = plan.tasks.map((planned, index): PlannedTask => {
    const before = lastSync === undefined ? [] : [lastSync];
    const joined = planned.task.asyncExecution ? [] : started;
    const deps = [...new Set([...before, ...joined, ...(planned.contextPositions ?? [])])];
    const implicit = joined.length > 0 ? joined : before;
    reads.set(planned.nodeId, planned.contextIds ?? implicit.map((i) => ids[i] as string));
    if (planned.task.asyncExecution) started.push(index);
    else {
      lastSync = index;
      started = [];
    }
    return { ...planned, contextPositions: deps, contextIds: deps.map((i) => ids[i] as string) };
  });
  return { tasks, byNodeId: new Map(tasks.map((t) => [t.nodeId, t])), reads };
}

/**
 * Whether a task reads every earlier task's output: it has no `context` list, is not asynchronous (an
 * asynchronous one reads the last task before it that is not, as in CrewAI), and the crew's `context`
 * is `'all'`.
 */
function readsAllEarlier(scope: CrewRunScope, planned: PlannedTask): boolean {
  const unset = scope.plan.tasks[planned.index]?.contextIds === undefined;
  return scope.crew.context === 'all' && unset && !planned.task.asyncExecution;
}

/** The supervisor of a sequential crew with asynchronous tasks: their dependencies run as a DAG. */
export function asyncChainSupervisor(scope: CrewRunScope): SupervisorSetup {
  const { plan, recorder } = scope;
  const chain = compileAsyncChain(plan);
  const ids = plan.tasks.map((t) => t.nodeId);
  return dagSupervisor(scope, chain.tasks, chain.byNodeId, {
    // Every earlier task has completed by then: the tasks it waits for waited for the ones before.
    readsOf: (planned) =>
      readsAllEarlier(scope, planned) ? ids.slice(0, planned.index) : (chain.reads.get(planned.nodeId) ?? []),
    separatorOf: (planned) => (readsAllEarlier(scope, planned) ? CREWAI_CONTEXT_DIVIDER : '\n'),
    // As any sequential crew: the raw of the completed task latest in list order; the last task is the leaf.
    summarize: () => chainSummary(plan.tasks, recorder),
  });
}

/**
 * CrewAI's rule for the end of a sequential crew: at most one asynchronous task after the last task
 * that is not (the crew's end joins it); more is `invalid_option` naming them.
 */
export function checkAsyncEnd(tasks: readonly Task[]): void {
  const trailing: string[] = [];
  for (let i = tasks.length - 1; i >= 0 && tasks[i]?.asyncExecution === true; i -= 1) {
    trailing.unshift(tasks[i]?.name ?? `task-${i + 1}`);
  }
  if (trailing.length > 1) {
    const names = trailing.map((n) => `"${n}"`).join(', ');
    throw new InvalidOptionError('Crew', 'tasks', 'at most one asynchronous task at the end', names, {
      message: `Crew: the crew ends with ${trailing.length} asynchronous tasks (${names}); it may end with at most one: add a task after them that is not asynchronous, or make all but one of them not asynchronous`,
    });
  }
}

/**
 * CrewAI's rule for an asynchronous task's context: it cannot read an asynchronous task it runs beside
 * (one started after the last task that is not asynchronous), whose output is not there yet.
 */
export function checkAsyncContext(plan: CrewPlan): void {
  for (const planned of plan.tasks) {
    if (!planned.task.asyncExecution) continue;
    for (const position of planned.contextPositions ?? []) {
      const beside = plan.tasks.slice(position, planned.index).every((t) => t.task.asyncExecution);
      if (!beside) continue;
      const ref = plan.tasks[position]?.nodeId as string;
      throw new InvalidOptionError(`Task "${planned.nodeId}"`, 'context', 'earlier finished tasks', ref, {
        message: `Task "${planned.nodeId}" is asynchronous and its context names "${ref}", an asynchronous task it runs beside (no task that is not asynchronous comes between them), so that output is not there yet: put a task that is not asynchronous between them, or make one of them not asynchronous`,
      });
    }
  }
}
