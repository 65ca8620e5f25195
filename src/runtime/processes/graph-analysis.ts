import type { CrewAnalysis, CrewShape } from '../crew/crew-picture.js';
import { findCycle } from '../crew/dag.js';
import { blockedByFailure } from '../crew/failure-reach.js';
import type { FailureReach } from '../process-shape.js';

/**
 * What a graph crew's analysis finds: what a failure blocks (as `reach` says: its descendants), what
 * a cycle makes unreachable (everything Kahn's order cannot reach), and the critical path (the longest chain).
 */
export function analyzeGraph(shape: CrewShape, reach: FailureReach): CrewAnalysis {
  const { tasks } = shape.plan;
  const ids = tasks.map((t) => t.nodeId);
  const dependents = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const t of tasks) for (const dep of t.contextIds ?? []) dependents.get(dep)?.push(t.nodeId);
  const blockedOnFailure = blockedByFailure(shape.plan, reach);
  const pending = new Map(tasks.map((t) => [t.nodeId, (t.contextIds ?? []).length]));
  const queue = ids.filter((id) => pending.get(id) === 0);
  const longest = new Map<string, string[]>(queue.map((id) => [id, [id]]));
  for (let i = 0; i < queue.length; i += 1) {
    const id = queue[i] as string;
    for (const next of dependents.get(id) ?? []) {
      const candidate = [...(longest.get(id) ?? []), next];
      if (candidate.length > (longest.get(next)?.length ?? 0)) longest.set(next, candidate);
      const left = (pending.get(next) ?? 0) - 1;
      pending.set(next, left);
      if (left === 0) queue.push(next);
    }
  }
  const ordered = new Set(queue);
  const criticalPath = [...longest.values()].reduce<string[]>(
    (best, p) => (p.length > best.length ? p : best),
    [],
  );
  const cycle = findCycle(tasks);
  return {
    process: shape.process,
    terminates: cycle === undefined,
    cycle,
    unreachable: ids.filter((id) => !ordered.has(id)),
    criticalPath,
    blockedOnFailure,
    paths: [{ states: queue, events: queue.map((id) => `SUCCEED.${id}`), outcome: 'completed' }],
  };
}
