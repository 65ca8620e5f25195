import type { FailureReach } from '../process-shape.js';
import type { CrewPlan } from './plan.js';

/** Each task's dependents: the tasks whose `context` lists it. */
function dependentsOf(plan: CrewPlan): Map<string, string[]> {
  const dependents = new Map<string, string[]>(plan.tasks.map((t) => [t.nodeId, []]));
  for (const t of plan.tasks) for (const dep of t.contextIds ?? []) dependents.get(dep)?.push(t.nodeId);
  return dependents;
}

/** The tasks that read `start`, directly or through others, in list order. */
function descendantsOf(start: string, ids: readonly string[], dependents: Map<string, string[]>): string[] {
  const seen = new Set<string>();
  const queue = [...(dependents.get(start) ?? [])];
  for (let i = 0; i < queue.length; i += 1) {
    const id = queue[i] as string;
    if (seen.has(id)) continue;
    seen.add(id);
    queue.push(...(dependents.get(id) ?? []));
  }
  return ids.filter((id) => seen.has(id));
}

/** For each task of the plan, the tasks its failure for good would keep from running, as `reach` says. */
export function blockedByFailure(plan: CrewPlan, reach: FailureReach): Record<string, string[]> {
  const ids = plan.tasks.map((t) => t.nodeId);
  if (reach === 'none') return Object.fromEntries(ids.map((id) => [id, []]));
  if (reach === 'following') return Object.fromEntries(ids.map((id, i) => [id, ids.slice(i + 1)]));
  const dependents = dependentsOf(plan);
  return Object.fromEntries(ids.map((id) => [id, descendantsOf(id, ids, dependents)]));
}
