import { within } from './composition.js';
import type { FlowPath } from './flow-path.js';

/** A run of a flow step on a path, as the walk found it: where its child's trail goes, and how it settled. */
export interface FlowStepRun {
  step: string;
  /** The index in the path's trail before which the child's trail goes. */
  at: number;
  outcome: 'completed' | 'failed';
  /** Its failure is handled (`failed(step)`): a forced failure, the child does not run. */
  handled: boolean;
}

/** A path of the parent's own graph, with the runs of its flow steps to expand. */
export interface PathTemplate {
  path: FlowPath;
  runs: FlowStepRun[];
}

/** Which child paths a run of a flow step stands for: one that completed, or (unhandled) one that failed. */
type Need = `${string}\n${'completed' | 'failed'}`;

const needOf = (run: FlowStepRun): Need | undefined =>
  run.outcome === 'completed' ? `${run.step}\ncompleted` : run.handled ? undefined : `${run.step}\nfailed`;

/** Every combination of one child path per need, lazily. */
function* combinations(
  needs: readonly Need[],
  options: (need: Need) => readonly FlowPath[],
  chosen: Map<Need, FlowPath> = new Map(),
): Generator<Map<Need, FlowPath>> {
  const need = needs[chosen.size];
  if (need === undefined) {
    yield chosen;
    return;
  }
  for (const path of options(need)) {
    chosen.set(need, path);
    yield* combinations(needs, options, chosen);
    chosen.delete(need);
  }
}

/** The parent path with the chosen child paths in it: their trails at their runs, their routes by path. */
function expand(template: PathTemplate, chosen: ReadonlyMap<Need, FlowPath>): FlowPath {
  const trail = [...template.path.trail];
  const routes: FlowPath['routes'] = { ...template.path.routes };
  for (const run of [...template.runs].sort((a, b) => b.at - a.at)) {
    const need = needOf(run);
    const child = need === undefined ? undefined : chosen.get(need);
    if (child === undefined) continue;
    trail.splice(run.at, 0, ...child.trail.map((name) => within(run.step, name)));
  }
  for (const [need, child] of chosen) {
    const step = need.slice(0, need.lastIndexOf('\n'));
    for (const [router, label] of Object.entries(child.routes)) {
      const key = within(step, router);
      if (!(key in routes)) routes[key] = label;
    }
  }
  return { routes, trail, outcome: template.path.outcome };
}

/**
 * The paths through the flow steps' children: each parent path once per combination of its flow
 * steps' child paths (one per flow step and outcome, whatever its runs: forced routes give each run
 * of a child the same routes), the child's steps and route choices named by their path
 * (`review › grade`). A run that completed takes a child path that completed; one whose failure is
 * unhandled ended the parent, and takes a child path that failed; a handled failure is forced, its
 * child not run. At most `limit` paths (`truncated` past it).
 */
export function composePaths(
  templates: readonly PathTemplate[],
  childPaths: ReadonlyMap<string, readonly FlowPath[]>,
  limit: number,
): { paths: FlowPath[]; truncated: boolean } {
  const paths: FlowPath[] = [];
  const options = (need: Need): readonly FlowPath[] => {
    const [step, outcome] = need.split('\n') as [string, string];
    return (childPaths.get(step) ?? []).filter((p) => p.outcome === outcome);
  };
  for (const template of templates) {
    const needs = [...new Set(template.runs.map(needOf).filter((n) => n !== undefined))];
    for (const chosen of combinations(needs, options)) {
      if (paths.length >= limit) return { paths, truncated: true };
      paths.push(expand(template, chosen));
    }
  }
  return { paths, truncated: false };
}
