import { RouteCoverageError } from '../../errors.js';
import type { StepShape } from '../../machines/flow/step-shape.js';
import type { StatecrewEvent } from '../../types.js';
import { within } from './composition.js';
import type { Flow } from './flow.js';
import type { FlowOutput } from './flow-output.js';
import type { FlowPath } from './flow-path.js';
import type { FlowRunOptions } from './flow-run-options.js';

/** One path of a flow, run with its routes forced. */
export interface PathRun<S> {
  flow: Flow<S>;
  path: FlowPath;
  output: FlowOutput<S & { id: string }>;
  /**
   * The rounds of the run's child flows — the steps that completed in each and what it emitted —
   * each with the flow step of this flow that ran it (a grandchild's too, under the step of this
   * flow it runs within): what they ran and their route choices.
   */
  children?: ChildRound[] | undefined;
}

/** A round of a child flow run: the flow step that ran the child, the steps that completed in it, what it emitted. */
export interface ChildRound {
  step: string;
  steps: string[];
  emitted: string[];
}

/** A child flow's round, relayed into its parent's events tagged with the parent's step. */
function childRound(event: StatecrewEvent): ChildRound | undefined {
  if (event.type !== 'flow.round') return undefined;
  const { step } = event as { step?: unknown };
  return typeof step === 'string' ? { step, steps: event.steps, emitted: event.emitted } : undefined;
}

/**
 * Runs every path of `flow` (its routers forced along it, their handlers not called) and hands each
 * run to `check`, one after another. Returns the runs, for `routeCoverage`. Through a flow step, the
 * path's child choices are forced by their path (`'review › grade'`); the run's `trail` holds this
 * flow's steps, the path's `trail` the child's too (`review › draft`).
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
    const run = flow.run({ ...options, routes: path.routes });
    const children: ChildRound[] = [];
    const subscription = run.events$.subscribe((event) => {
      const round = childRound(event);
      if (round !== undefined) children.push(round);
    });
    const output = await run.result;
    subscription.unsubscribe();
    await check(path, output);
    runs.push({ flow, path, output, children });
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

/** The routes each step of `steps` declares, `router=label`, and through each flow step its child's, by path. */
function declaredRoutes(steps: readonly StepShape[]): string[] {
  return steps.flatMap((s) => {
    const own = (s.routes ?? []).map((label) => `${s.name}=${label}`);
    if (s.kind !== 'flow' || s.subflow === undefined) return own;
    return [...own, ...declaredRoutes(s.subflow.steps).map((route) => within(s.name, route))];
  });
}

/** `router=label` for each router name followed, in `emitted`, by one of its labels. */
function routesIn(emitted: readonly string[], isRoute: (router: string, label: string) => boolean): string[] {
  const taken: string[] = [];
  emitted.forEach((name, i) => {
    const next = emitted[i + 1];
    if (next !== undefined && isRoute(name, next)) taken.push(`${name}=${next}`);
  });
  return taken;
}

/** The routes a run took: its own, read from what it emitted, and its children's, by their path. */
function takenRoutes(run: PathRun<unknown>, declared: ReadonlySet<string>): Set<string> {
  const taken = new Set(routesIn(run.output.emitted, (router, label) => declared.has(`${router}=${label}`)));
  for (const { step, emitted } of run.children ?? []) {
    // A grandchild's rounds come tagged with this flow's step alone: its routes are matched by their
    // router's name and label under that step, at whatever depth it is declared.
    const under = [...declared].filter((route) => route.startsWith(within(step, '')));
    const matching = (route: string) =>
      under.filter((d) => d === within(step, route) || d.endsWith(within('', route)));
    for (const route of routesIn(emitted, (router, label) => matching(`${router}=${label}`).length > 0)) {
      for (const found of matching(route)) taken.add(found);
    }
  }
  return taken;
}

/**
 * The route coverage of runs of one flow, read from what each run emitted — and, through a flow
 * step, what its child emitted, its routes named by their path (`review › grade=approve`).
 *
 * @example
 * routeCoverage(await forEachPath(flow, check)); // { covered: ['grade=approve', …], uncovered: [], ratio: 1 }
 */
export function routeCoverage<S>(runs: readonly PathRun<S>[]): RouteCoverage {
  const declared = declaredRoutes(runs[0]?.flow.definition.steps ?? []);
  const known = new Set(declared);
  const taken = new Set<string>();
  for (const run of runs) for (const route of takenRoutes(run as PathRun<unknown>, known)) taken.add(route);
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
