import { within } from '../runtime/flow/composition.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { FlowPath } from '../runtime/flow/flow-path.js';
import { chose, coveredOf } from './covered.js';
import { takenEdges } from './flow-edges.js';
import { failedStepOf, namesIn, type StepShape } from './flow-shape.js';
import type { EvalCoverage, RunPath } from './types.js';

/** A choice a step declares: the step (a child's by path) and its label. */
type Declared = [step: string, label: string];

/** `name` under `at`: a child's step by its path. */
function named(at: string, name: string): string {
  return at === '' ? name : within(at, name);
}

/** Every step's name, a child's by path. */
function stepNames(steps: readonly StepShape[], at = ''): string[] {
  return steps.flatMap((step) => {
    const name = named(at, step.name);
    if (step.kind !== 'flow' || step.subflow === undefined) return [name];
    return [...stepNames(step.subflow.steps, name), name];
  });
}

/** What `pick` declares of each step, a child's by path: `[step, label]` pairs. */
function declared(
  steps: readonly StepShape[],
  pick: (step: StepShape) => readonly string[],
  at = '',
): Declared[] {
  return steps.flatMap((step) => {
    const name = named(at, step.name);
    const own = pick(step).map((label): Declared => [name, label]);
    if (step.kind !== 'flow' || step.subflow === undefined) return own;
    return [...own, ...declared(step.subflow.steps, pick, name)];
  });
}

/** A path's name: its trail joined with ` → `, and its outcome. */
export function pathName(path: FlowPath): string {
  return `${path.trail.join(' → ')} [${path.outcome}]`;
}

/** What identifies a trail and its routes, whatever the routes' key order. */
const keyOf = (path: Pick<FlowPath, 'trail' | 'routes'>) =>
  JSON.stringify([path.trail, Object.entries(path.routes).sort(([a], [b]) => a.localeCompare(b))]);

/** Covered choices: each `[step, label]` as `step=label`, covered when some run chose it. */
function choicesCovered(all: readonly Declared[], runs: readonly RunPath[]) {
  const names = new Map(all.map(([step, label]) => [`${step}=${label}`, [step, label] as Declared]));
  return coveredOf([...names.keys()], (name) => {
    const [step, label] = names.get(name) as Declared;
    return runs.some((run) => chose(run.routes[step], label));
  });
}

/**
 * A flow's coverage by `runs`: its paths (from `analyze()`) some run took exactly, its declared
 * routes and timeouts some run chose, its failure handlers and steps some run completed, and its
 * edges with how many runs went along each.
 */
export function flowCoverage<S>(flow: Flow<S>, runs: readonly RunPath[]): EvalCoverage {
  const analysis = flow.analyze();
  const steps = flow.definition.steps as readonly StepShape[];
  const taken = new Set(runs.map(keyOf));
  const routeLabels = (s: StepShape) => [
    ...(s.kind === 'router' || s.kind === 'human' ? (s.routes ?? []) : []),
    ...(s.onTimeout === undefined ? [] : [s.onTimeout]),
  ];
  const handlers = declared(steps, (s) =>
    [...namesIn(s.trigger)].some((n) => failedStepOf(n) !== undefined) ? [s.name] : [],
  ).map(([step]) => step);
  const completed = (name: string) => runs.some((run) => run.trail.includes(name));
  return {
    kind: 'flow',
    paths: {
      ...coveredOf(analysis.paths.map(pathName), (name) =>
        analysis.paths.some((p) => pathName(p) === name && taken.has(keyOf(p))),
      ),
      total: analysis.paths.length,
    },
    routes: choicesCovered(declared(steps, routeLabels), runs),
    failureHandlers: coveredOf(handlers, completed),
    timeouts: choicesCovered(
      declared(steps, (s) => (s.onTimeout === undefined ? [] : [s.onTimeout])),
      runs,
    ),
    nodes: coveredOf(stepNames(steps), completed),
    edges: takenEdges(steps, runs),
    truncated: analysis.stats.truncated,
  };
}
