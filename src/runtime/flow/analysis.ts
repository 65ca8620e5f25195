import { type AbstractFlow, type AbstractGraph, buildAbstractGraph } from './abstraction.js';
import { namesIn } from './triggers.js';
import { validateTriggers } from './validate.js';

/** One path of a flow: the labels its routers return (a list when one runs more than once), what runs, how it ends. */
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

/** Whether every reachable state can reach an end, and whether the graph has a cycle. */
function termination(graph: AbstractGraph): { allReachEnd: boolean; cyclic: boolean } {
  const reaches = new Set<string>();
  for (const [key, node] of graph.nodes) if (node.snapshot.status === 'done') reaches.add(key);
  let changed = true;
  while (changed) {
    changed = false;
    for (const [key, node] of graph.nodes) {
      if (!reaches.has(key) && node.edges.some((e) => reaches.has(e.to))) {
        reaches.add(key);
        changed = true;
      }
    }
  }
  const color = new Map<string, 1 | 2>();
  let cyclic = false;
  const visit = (start: string) => {
    const stack: { key: string; next: number }[] = [{ key: start, next: 0 }];
    color.set(start, 1);
    while (stack.length > 0 && !cyclic) {
      const top = stack[stack.length - 1] as { key: string; next: number };
      const edges = graph.nodes.get(top.key)?.edges ?? [];
      if (top.next >= edges.length) {
        color.set(top.key, 2);
        stack.pop();
        continue;
      }
      const to = (edges[top.next] as { to: string }).to;
      top.next += 1;
      if (color.get(to) === 1) cyclic = true;
      else if (!color.has(to)) {
        color.set(to, 1);
        stack.push({ key: to, next: 0 });
      }
    }
  };
  visit(graph.initial);
  return { allReachEnd: reaches.size === graph.nodes.size, cyclic };
}

/** Lists paths from the initial state to an end, depth first, at most `limit` (stops at repeated states). */
function enumeratePaths(flow: AbstractFlow, graph: AbstractGraph, limit: number) {
  const routers = new Set(flow.steps.filter((s) => s.kind === 'router').map((s) => s.name));
  const found: { path: FlowPath; end: string }[] = [];
  let truncated = false;
  const walk = (key: string, trail: string[], labels: [string, string][], onPath: Set<string>) => {
    if (truncated) return;
    const node = graph.nodes.get(key);
    if (node === undefined) return;
    if (node.snapshot.status === 'done') {
      if (found.length >= limit) {
        truncated = true;
        return;
      }
      const routes: Record<string, string | string[]> = {};
      for (const [router, label] of labels) {
        const seen = routes[router];
        routes[router] = seen === undefined ? label : [...(Array.isArray(seen) ? seen : [seen]), label];
      }
      const outcome = node.snapshot.value === 'failed' ? 'failed' : 'completed';
      found.push({ path: { routes, trail, outcome }, end: key });
      return;
    }
    const round = node.snapshot.context.round;
    for (const edge of node.edges) {
      if (onPath.has(edge.to)) continue;
      const chosen = round
        .filter((s) => routers.has(s))
        .map((r): [string, string] => [r, edge.event.labels[r] as string]);
      onPath.add(edge.to);
      walk(edge.to, [...trail, ...round], [...labels, ...chosen], onPath);
      onPath.delete(edge.to);
    }
  };
  walk(graph.initial, [], [], new Set([graph.initial]));
  return { found, truncated };
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
  const { allReachEnd, cyclic } = termination(graph);
  const { found, truncated } = enumeratePaths(flow, graph, options.limit ?? 10_000);

  const reached = new Set<string>();
  let transitions = 0;
  for (const node of graph.nodes.values()) {
    for (const step of node.snapshot.context.round) reached.add(step);
    transitions += node.edges.length;
  }
  const unreachableSteps = flow.steps.filter((s) => !reached.has(s.name)).map((s) => s.name);
  const named = new Set<string>();
  for (const step of flow.steps) if (step.trigger !== undefined) namesIn(step.trigger, named);
  const unusedRoutes = flow.steps.flatMap((s) =>
    (s.routes ?? []).filter((label) => !named.has(label) || !reached.has(s.name)),
  );
  const deadEnds = found.flatMap(({ path, end }) =>
    path.outcome === 'completed'
      ? (graph.nodes.get(end)?.snapshot.context.rounds.waiting() ?? []).map((w) => ({
          ...w,
          trail: path.trail,
        }))
      : [],
  );
  return {
    terminates: allReachEnd && !cyclic,
    paths: found.map((f) => f.path),
    unreachableSteps,
    unusedRoutes,
    deadEnds,
    stats: { states: graph.nodes.size, transitions, paths: found.length, truncated },
  };
}
