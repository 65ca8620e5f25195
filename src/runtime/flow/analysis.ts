import { completes, handledSteps, outcomesOf } from '../../machines/flow/outcomes.js';
import type { StepShape } from '../../machines/flow/step-shape.js';
import { namesIn } from '../../machines/flow/triggers.js';
import {
  type AbstractFlow,
  type AbstractGraph,
  type AbstractNode,
  buildAbstractGraph,
} from './abstraction.js';
import { validateTriggers } from './validate.js';

/**
 * One path of a flow: the outcome of each step that chooses one (a router's label, a wait's name or
 * timeout label, `failed` for a handled failure; a list when it runs more than once), the steps that
 * complete, and how it ends.
 */
export interface FlowPath {
  routes: Record<string, string | string[]>;
  trail: string[];
  outcome: 'completed' | 'failed';
}

/** Options of `flow.analyze()` and `flow.paths()`. */
export interface AnalyzeOptions {
  /** Paths listed at most (simple paths: a cycle of the state graph is never gone round); past it `stats.truncated` is true. @default 10_000 */
  limit?: number | undefined;
  /** Abstract states explored at most (`analysis_limit` past it). @default 100_000 */
  stateLimit?: number | undefined;
}

/** What `flow.analyze()` proves and finds. */
export interface FlowAnalysis {
  /** Every reachable state reaches an end and no cycle can repeat forever. */
  terminates: boolean;
  paths: FlowPath[];
  /** Steps that run on no path, in definition order. */
  unreachableSteps: string[];
  /** Declared route labels that no trigger names, or whose router never runs. */
  unusedRoutes: string[];
  /** Paths that end while an `and` (or other gate) is partly satisfied. */
  deadEnds: { step: string; missing: string[]; trail: string[] }[];
  stats: { states: number; transitions: number; paths: number; truncated: boolean };
}

function graphOf(flow: AbstractFlow, options: AnalyzeOptions): AbstractGraph {
  validateTriggers(flow);
  return buildAbstractGraph(flow, options.stateLimit ?? 100_000);
}

/** The states that can reach an end: a breadth-first search from the ends along reversed edges. */
function reachingEnd(graph: AbstractGraph): Set<string> {
  const into = new Map<string, string[]>();
  for (const [key, node] of graph.nodes) {
    for (const { to } of node.edges) {
      const from = into.get(to);
      if (from === undefined) into.set(to, [key]);
      else from.push(key);
    }
  }
  const reaches = new Set<string>();
  for (const [key, node] of graph.nodes) if (node.snapshot.status === 'done') reaches.add(key);
  const queue = [...reaches];
  for (let i = 0; i < queue.length; i += 1) {
    for (const from of into.get(queue[i] as string) ?? []) {
      if (reaches.has(from)) continue;
      reaches.add(from);
      queue.push(from);
    }
  }
  return reaches;
}

/** Whether a cycle is reachable from the initial state: an iterative depth-first search with colours. */
function hasCycle(graph: AbstractGraph): boolean {
  const color = new Map<string, 1 | 2>([[graph.initial, 1]]);
  const stack: { key: string; next: number }[] = [{ key: graph.initial, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { key: string; next: number };
    const edges = graph.nodes.get(top.key)?.edges ?? [];
    if (top.next >= edges.length) {
      color.set(top.key, 2);
      stack.pop();
      continue;
    }
    const to = (edges[top.next] as { to: string }).to;
    top.next += 1;
    if (color.get(to) === 1) return true;
    if (!color.has(to)) {
      color.set(to, 1);
      stack.push({ key: to, next: 0 });
    }
  }
  return false;
}

/** The routes of a path: each router's label, or its labels in order when it ran more than once. */
function routesOf(labels: readonly [string, string][]): Record<string, string | string[]> {
  const routes: Record<string, string | string[]> = {};
  for (const [router, label] of labels) {
    const seen = routes[router];
    routes[router] = seen === undefined ? label : [...(Array.isArray(seen) ? seen : [seen]), label];
  }
  return routes;
}

/** A state on the path being walked: the edge to try next, and the trail and labels before its round. */
interface PathFrame {
  key: string;
  node: AbstractNode;
  next: number;
  trailAt: number;
  labelsAt: number;
  /** The steps of its round that choose an outcome, whose outcomes each edge chooses. */
  routers: string[];
  /** The steps of its round. */
  round: StepShape[];
}

/** What a walk reads of the flow's steps: each by name, and which choose an outcome. */
interface WalkSteps {
  byName: ReadonlyMap<string, StepShape>;
  routers: ReadonlySet<string>;
}

/**
 * Lists paths from the initial state to an end, depth first, at most `limit` (never entering a state
 * already on the path). The trail and labels are one stack shared by every path and copied only when
 * a path ends, so the walk costs the edges it follows plus the paths it lists — not, as copying them
 * at every state would, the trail's length at every state (quadratic on a chain).
 */
class PathWalk {
  readonly found: { path: FlowPath; end: string }[] = [];
  truncated = false;
  readonly #trail: string[] = [];
  readonly #labels: [string, string][] = [];
  readonly #onPath = new Set<string>();
  readonly #stack: PathFrame[] = [];

  readonly #graph: AbstractGraph;
  readonly #steps: WalkSteps;
  readonly #limit: number;

  constructor(graph: AbstractGraph, steps: WalkSteps, limit: number) {
    this.#graph = graph;
    this.#steps = steps;
    this.#limit = limit;
  }

  run(): this {
    this.#enter(this.#graph.initial);
    while (this.#stack.length > 0 && !this.truncated) {
      const top = this.#stack[this.#stack.length - 1] as PathFrame;
      this.#trail.length = top.trailAt;
      this.#labels.length = top.labelsAt;
      const edge = top.node.edges[top.next];
      if (edge === undefined) {
        this.#stack.pop();
        this.#onPath.delete(top.key);
        continue;
      }
      top.next += 1;
      if (this.#onPath.has(edge.to)) continue;
      for (const router of top.routers) this.#labels.push([router, edge.event.labels[router] as string]);
      // The round's steps that complete on this edge: a handled failure is not in the trail.
      for (const step of top.round) {
        if (completes(step, edge.event.labels[step.name])) this.#trail.push(step.name);
      }
      this.#enter(edge.to);
    }
    return this;
  }

  /** Ends a path at `key` if it is an end (or marks the walk truncated past the limit), else walks into it. */
  #enter(key: string): void {
    const node = this.#graph.nodes.get(key);
    if (node === undefined) return;
    if (node.snapshot.status === 'done') {
      if (this.found.length >= this.#limit) this.truncated = true;
      else {
        const outcome = node.snapshot.value === 'failed' ? 'failed' : 'completed';
        this.found.push({
          path: { routes: routesOf(this.#labels), trail: [...this.#trail], outcome },
          end: key,
        });
      }
      return;
    }
    const routers: string[] = [];
    const round: StepShape[] = [];
    for (const { step: name } of node.snapshot.context.flow.scheduled) {
      round.push(this.#steps.byName.get(name) as StepShape);
      if (this.#steps.routers.has(name)) routers.push(name);
    }
    this.#stack.push({
      key,
      node,
      next: 0,
      trailAt: this.#trail.length,
      labelsAt: this.#labels.length,
      routers,
      round,
    });
    this.#onPath.add(key);
  }
}

function enumeratePaths(flow: AbstractFlow, graph: AbstractGraph, limit: number) {
  const handled = handledSteps(flow.steps);
  const routers = new Set(flow.steps.filter((s) => outcomesOf(s, handled) !== undefined).map((s) => s.name));
  const byName = new Map(flow.steps.map((s) => [s.name, s]));
  return new PathWalk(graph, { byName, routers }, limit).run();
}

/** Every path of a flow (at most `limit`), as route choices, trail and outcome. */
export function flowPaths(flow: AbstractFlow, options: AnalyzeOptions = {}): FlowPath[] {
  return enumeratePaths(flow, graphOf(flow, options), options.limit ?? 10_000).found.map((f) => f.path);
}

/**
 * Proves termination on the flow's abstract state graph (built with `@xstate/graph`; its only choices
 * are route labels), and finds unreachable steps, unused routes, dead ends and every path.
 */
export function analyzeFlow(flow: AbstractFlow, options: AnalyzeOptions = {}): FlowAnalysis {
  const graph = graphOf(flow, options);
  const allReachEnd = reachingEnd(graph).size === graph.nodes.size;
  const { found, truncated } = enumeratePaths(flow, graph, options.limit ?? 10_000);

  const reached = new Set<string>();
  let transitions = 0;
  for (const node of graph.nodes.values()) {
    for (const scheduled of node.snapshot.context.flow.scheduled) reached.add(scheduled.step);
    transitions += node.edges.length;
  }
  const unreachableSteps = flow.steps.filter((s) => !reached.has(s.name)).map((s) => s.name);
  const named = new Set<string>();
  for (const step of flow.steps) if (step.trigger !== undefined) namesIn(step.trigger, named);
  const unusedRoutes = flow.steps.flatMap((s) =>
    [...(s.routes ?? []), ...(s.onTimeout === undefined ? [] : [s.onTimeout])].filter(
      (label) => !named.has(label) || !reached.has(s.name),
    ),
  );
  const deadEnds = found.flatMap(({ path, end }) =>
    path.outcome === 'completed'
      ? (graph.nodes.get(end)?.snapshot.context.flow.rounds.waiting() ?? []).map((w) => ({
          ...w,
          trail: path.trail,
        }))
      : [],
  );
  return {
    terminates: allReachEnd && !hasCycle(graph),
    paths: found.map((f) => f.path),
    unreachableSteps,
    unusedRoutes,
    deadEnds,
    stats: { states: graph.nodes.size, transitions, paths: found.length, truncated },
  };
}
