import type { Crew } from '../runtime/crew/crew.js';
import { coveredOf } from './covered.js';
import type { EvalCoverage, RunPath } from './types.js';

/** Whether `run` completed `from` and then `to` (a process's own node, `@…`, stands for any completed task). */
function wentAlong(run: RunPath, from: string, to: string): boolean {
  const at = (name: string) =>
    name.startsWith('@') ? (run.trail.length > 0 ? 0 : -1) : run.trail.indexOf(name);
  const a = at(from);
  const b = at(to);
  return a >= 0 && b >= 0 && (a <= b || from.startsWith('@') || to.startsWith('@'));
}

/**
 * A crew's coverage by `runs`. Kept simple: one path whatever the process, its tasks in list order
 * (a sequential crew's only order; other processes may run them in another), covered when a run
 * completed them all in that order; no routes, failure handlers or timeouts (each ratio 1); the tasks
 * some run completed; the edges of the crew's picture (`processShape()`: task to next task, a
 * graph's context dependencies, a manager's `@manager` node), taken by a run that completed both ends
 * in that order.
 */
export function crewCoverage(crew: Crew, runs: readonly RunPath[]): EvalCoverage {
  const tasks = crew.tasks.map((task) => crew.nodeIdOf(task) ?? String(task.name));
  const order = tasks.join(' → ');
  const none = coveredOf([], () => false);
  const edges = crew.processShape().edges.map((edge) => ({
    from: edge.from,
    to: edge.to,
    ...(edge.label === undefined ? {} : { label: edge.label }),
    taken: runs.filter((run) => wentAlong(run, edge.from, edge.to)).length,
  }));
  return {
    kind: 'crew',
    paths: {
      ...coveredOf([order], () => runs.some((run) => run.trail.join(' → ') === order)),
      total: 1,
    },
    routes: none,
    failureHandlers: none,
    timeouts: none,
    nodes: coveredOf(tasks, (task) => runs.some((run) => run.trail.includes(task))),
    edges,
    truncated: false,
  };
}
