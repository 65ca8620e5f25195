import { RouteCoverageError } from '../../errors.js';
import type { FlowPath } from './analysis.js';
import type { Flow } from './flow.js';
import type { FlowOutput } from './flow-output.js';
import type { FlowRunOptions } from './flow-run-options.js';

/** One path of a flow, run with its routes forced. */
export interface PathRun<S> {
  flow: Flow<S>;
  path: FlowPath;
  output: FlowOutput<S & { id: string }>;
}

/**
 * Runs every path of `flow` (its routers forced along it, their handlers not called) and hands each
 * run to `check`, one after another. Returns the runs, for `routeCoverage`.
 *
 * @example
 * const runs = await forEachPath(flow, (path, out) => expect(out.trail).toEqual(path.trail));
 */
export async function forEachPath<S>(
  flow: Flow<S>,
  check: (path: FlowPath, output: FlowOutput<S & { id: string }>) => void | Promise<void>,
  options: Omit<FlowRunOptions, 'routes'> = {},
): Promise<PathRun<S>[]> {
  const runs: PathRun<S>[] = [];
  for (const path of flow.paths()) {
    const output = await flow.kickoff({ ...options, routes: path.routes });
    await check(path, output);
    runs.push({ flow, path, output });
  }
  return runs;
}

/** Which declared routes (`router=label`) some run took, and which none did. */
export interface RouteCoverage {
  covered: string[];
  uncovered: string[];
  /** covered / declared; 1 for a flow without routers. */
  ratio: number;
}

/**
 * The route coverage of runs of one flow, read from what each run emitted.
 *
 * @example
 * routeCoverage(await forEachPath(flow, check)); // { covered: ['grade=approve', …], uncovered: [], ratio: 1 }
 */
export function routeCoverage<S>(runs: readonly PathRun<S>[]): RouteCoverage {
  const flow = runs[0]?.flow;
  const declared = (flow?.definition.steps ?? []).flatMap((s) =>
    (s.routes ?? []).map((label) => `${s.name}=${label}`),
  );
  const routers = new Map(
    (flow?.definition.steps ?? []).filter((s) => s.routes).map((s) => [s.name, s.routes ?? []]),
  );
  const taken = new Set<string>();
  for (const { output } of runs) {
    output.emitted.forEach((name, i) => {
      const next = output.emitted[i + 1];
      if (next !== undefined && routers.get(name)?.includes(next)) taken.add(`${name}=${next}`);
    });
  }
  const covered = declared.filter((r) => taken.has(r));
  return {
    covered,
    uncovered: declared.filter((r) => !taken.has(r)),
    ratio: declared.length === 0 ? 1 : covered.length / declared.length,
  };
}

/**
 * Throws `route_coverage` ({@link RouteCoverageError}), listing the routes no run took, when coverage
 * is below `min` (a ratio; default all of them).
 *
 * @example
 * expectRouteCoverage(routeCoverage(runs), 0.9);
 */
export function expectRouteCoverage(coverage: RouteCoverage, min = 1): void {
  if (coverage.ratio >= min) return;
  throw new RouteCoverageError(coverage.ratio, min, coverage.uncovered);
}
