import type { Crew } from '../runtime/crew/crew.js';
import { within } from '../runtime/flow/composition.js';
import type { ChildRound } from '../runtime/flow/coverage.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { CrewOutput } from '../types.js';
import { childRunsOf } from './child-runs.js';
import { type Choices, choicesIn, failuresIn } from './flow-choices.js';
import type { StepShape } from './flow-shape.js';
import type { RunPath } from './types.js';

/** What one flow's run (the run itself, or a child's) tells of its path. */
interface FlowLevel {
  steps: readonly StepShape[];
  trail: readonly string[];
  emitted: readonly string[];
  children: readonly ChildRound[];
  failed: readonly string[];
}

/** A path read at one level, a child's already within it. */
type LevelPath = Pick<RunPath, 'trail' | 'routes' | 'failed'>;

/** Each flow step's child runs' paths, by the step's name. */
function childPathsOf(level: FlowLevel): Map<string, LevelPath[]> {
  const paths = new Map<string, LevelPath[]>();
  for (const step of level.steps) {
    if (step.kind !== 'flow' || step.subflow === undefined) continue;
    const runs = childRunsOf(step, level.children);
    if (runs.length === 0) continue;
    const inner = step.subflow.steps;
    paths.set(
      step.name,
      runs.map((run) => levelPath({ steps: inner, ...run, failed: failuresIn(run.emitted) })),
    );
  }
  return paths;
}

/**
 * The trail with each child run's trail (by path) before the flow step's completion it belongs to;
 * a child run its step did not complete goes at the end (the run paused or failed there) unless the
 * step's failure was handled (a path through a handled failure holds none of its child's steps).
 */
function trailWith(level: FlowLevel, children: ReadonlyMap<string, LevelPath[]>): string[] {
  const trail: string[] = [];
  const seen = new Map<string, number>();
  for (const name of level.trail) {
    const k = seen.get(name) ?? 0;
    seen.set(name, k + 1);
    const child = children.get(name)?.[k];
    if (child !== undefined) trail.push(...child.trail.map((inner) => within(name, inner)));
    trail.push(name);
  }
  const handled = new Set(failuresIn(level.emitted));
  for (const [step, paths] of children) {
    if (handled.has(step)) continue;
    for (const child of paths.slice(seen.get(step) ?? 0)) {
      trail.push(...child.trail.map((inner) => within(step, inner)));
    }
  }
  return trail;
}

function levelPath(level: FlowLevel): LevelPath {
  const children = childPathsOf(level);
  const routes: Choices = choicesIn(level.steps, level.emitted, level.trail);
  const failed = [...level.failed];
  for (const [step, paths] of children) {
    for (const child of paths) {
      // As forced routes give every run of a child the same choices, a path names the first run's.
      for (const [router, label] of Object.entries(child.routes)) {
        const key = within(step, router);
        if (!(key in routes)) routes[key] = label;
      }
      for (const name of child.failed)
        if (!failed.includes(within(step, name))) failed.push(within(step, name));
    }
  }
  return { trail: trailWith(level, children), routes, failed };
}

/**
 * The path a flow run took: its trail (a child flow's steps by path, `review › draft`, before the
 * flow step's own name — from `children`, the rounds its child flows relayed), each choice as
 * `FlowPath.routes` names it (a router's label, a wait's name or its timeout label, `failed` for a
 * handled failure; a list when a step chose more than once), what it emitted and what failed. A run
 * along a path of `flow.paths()` gives that path's trail and routes; a paused or failed run, the
 * prefix it took.
 *
 * @example
 * flowRunPath(saga, await saga.kickoff({ inputs })); // { trail: ['charge', 'ship'], routes: { charge: 'charge' }, … }
 */
export function flowRunPath<S>(
  flow: Flow<S>,
  out: FlowOutput<unknown>,
  children: readonly ChildRound[] = [],
): RunPath {
  const path = levelPath({
    steps: flow.definition.steps,
    trail: out.trail,
    emitted: out.emitted,
    children,
    failed: Object.keys(out.failures),
  });
  const waiting = (out.waiting ?? (out.pending === undefined ? [] : [out.pending])).map((w) => w.step);
  return { ...path, emitted: [...out.emitted], ...(waiting.length > 0 ? { waiting } : {}) };
}

/**
 * The path a crew run took: its completed tasks by node id (its name, else `task-<n>`) in completion
 * order, and the nodes that failed; a crew chooses no routes.
 */
export function crewRunPath(_crew: Crew, out: CrewOutput): RunPath {
  return {
    trail: out.tasksOutput.map((task) => task.name),
    routes: {},
    emitted: [],
    failed: out.nodes.filter((node) => node.status === 'failed').map((node) => node.name),
  };
}
