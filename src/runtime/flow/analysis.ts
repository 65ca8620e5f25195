import { handledSteps, outcomesOf } from '../../machines/flow/outcomes.js';
import { namesIn } from '../../machines/flow/triggers.js';
import { type AbstractFlow, type AbstractGraph, buildAbstractGraph } from './abstraction.js';
import { composePaths } from './composed-paths.js';
import { type ChildFlowStep, childFlowsOf, FlowChain, within } from './composition.js';
import type { FlowPath } from './flow-path.js';
import { PathWalk } from './path-walk.js';
import { validateTriggers } from './validate.js';

export type { FlowPath } from './flow-path.js';

/** Options of `flow.analyze()` and `flow.paths()`. */
export interface AnalyzeOptions {
  /** Paths listed at most (simple paths: a cycle of the state graph is never gone round); past it `stats.truncated` is true. @default 10_000 */
  limit?: number | undefined;
  /** Abstract states explored at most (`analysis_limit` past it). @default 100_000 */
  stateLimit?: number | undefined;
}

/** What `flow.analyze()` proves and finds. */
export interface FlowAnalysis {
  /** Every reachable state reaches an end and no cycle can repeat forever, in the flow and every child flow it runs. */
  terminates: boolean;
  /** Every path (at most `limit`), through flow steps' children (`FlowPath`). */
  paths: FlowPath[];
  /** Steps that run on no path, in definition order; then a child flow's, by their path (`review › polish`). */
  unreachableSteps: string[];
  /** Declared route labels that no trigger names, or whose router never runs; a child's by their path. */
  unusedRoutes: string[];
  /** Paths that end while an `and` (or other gate) is partly satisfied; a child's by their path. */
  deadEnds: { step: string; missing: string[]; trail: string[] }[];
  /**
   * Why `terminates` is false (empty when it is true): the flow itself, or — `step` the path of steps
   * that runs it (`review`, `review › check`) — a child flow that may not terminate.
   */
  nonTerminating: { flow: string; step?: string; reason: string }[];
  stats: { states: number; transitions: number; paths: number; truncated: boolean };
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

function enumeratePaths(flow: AbstractFlow, graph: AbstractGraph, limit: number): PathWalk {
  const handled = handledSteps(flow.steps);
  const routers = new Set(flow.steps.filter((s) => outcomesOf(s, handled) !== undefined).map((s) => s.name));
  const byName = new Map(flow.steps.map((s) => [s.name, s]));
  return new PathWalk(graph, { byName, routers, handled }, limit).run();
}

/** A child flow's analysis (or its paths alone), with the step that runs it. */
type Child<T> = ChildFlowStep & { analysis: T };

/** Each step's child flow, analysed by `analyze` one level down the chain (`cycle` if a flow contains itself). */
function childrenOf<T>(
  flow: AbstractFlow,
  chain: FlowChain,
  analyze: (child: AbstractFlow, chain: FlowChain) => T,
): Child<T>[] {
  return childFlowsOf(flow.steps).map((found) => ({
    ...found,
    analysis: analyze(found.child, chain.enter(found.step.name, found.child)),
  }));
}

/** The flow steps whose child flow can end failed: their step can fail, handled or not. */
function failingSteps(children: readonly Child<{ paths: FlowPath[] }>[]): Set<string> {
  return new Set(
    children
      .filter((c) => c.kind === 'flow' && c.analysis.paths.some((p) => p.outcome === 'failed'))
      .map((c) => c.step.name),
  );
}

/** The flow's paths with its flow steps' child paths composed into them, and the flow's graph. */
function composedPaths(
  flow: AbstractFlow,
  options: AnalyzeOptions,
  children: readonly Child<{ paths: FlowPath[] }>[],
) {
  const limit = options.limit ?? 10_000;
  validateTriggers(flow);
  const graph = buildAbstractGraph(flow, options.stateLimit ?? 100_000, failingSteps(children));
  const walk = enumeratePaths(flow, graph, limit);
  const childPaths = new Map(
    children.filter((c) => c.kind === 'flow').map((c) => [c.step.name, c.analysis.paths]),
  );
  const composed = composePaths(walk.found, childPaths, limit);
  return { graph, walk, paths: composed.paths, truncated: walk.truncated || composed.truncated };
}

function pathsWithin(flow: AbstractFlow, options: AnalyzeOptions, chain: FlowChain): { paths: FlowPath[] } {
  const children = childrenOf(flow, chain, (child, down) => pathsWithin(child, options, down));
  return { paths: composedPaths(flow, options, children).paths };
}

/**
 * Every path of a flow (at most `limit`), as route choices, trail and outcome; through a flow step,
 * once per path of its child, named by their path (`review › grade`).
 */
export function flowPaths(flow: AbstractFlow, options: AnalyzeOptions = {}): FlowPath[] {
  return pathsWithin(flow, options, new FlowChain(flow)).paths;
}

/** What the flow's own graph proves and finds, before its children's findings join it. */
function ownFindings(flow: AbstractFlow, graph: AbstractGraph, walk: PathWalk) {
  const reached = new Set<string>();
  let transitions = 0;
  for (const node of graph.nodes.values()) {
    for (const scheduled of node.snapshot.context.flow.scheduled) reached.add(scheduled.step);
    transitions += node.edges.length;
  }
  const named = new Set<string>();
  for (const step of flow.steps) if (step.trigger !== undefined) namesIn(step.trigger, named);
  const unusedRoutes = flow.steps.flatMap((s) =>
    [...(s.routes ?? []), ...(s.onTimeout === undefined ? [] : [s.onTimeout])].filter(
      (label) => !named.has(label) || !reached.has(s.name),
    ),
  );
  const deadEnds = walk.found.flatMap(({ path, end }) =>
    path.outcome === 'completed'
      ? (graph.nodes.get(end)?.snapshot.context.flow.rounds.waiting() ?? []).map((w) => ({
          ...w,
          trail: path.trail,
        }))
      : [],
  );
  const nonTerminating: FlowAnalysis['nonTerminating'] = [];
  if (reachingEnd(graph).size !== graph.nodes.size) {
    nonTerminating.push({ flow: flow.name, reason: 'a state of it can reach no end' });
  }
  if (hasCycle(graph)) nonTerminating.push({ flow: flow.name, reason: 'a cycle of it can repeat forever' });
  return { reached, transitions, unusedRoutes, deadEnds, nonTerminating };
}

/** What a child's analysis adds to its parent's, its names prefixed with the step that runs it. */
function childFindings(child: Child<FlowAnalysis>) {
  const at = child.step.name;
  const { analysis } = child;
  return {
    unreachableSteps: analysis.unreachableSteps.map((name) => within(at, name)),
    unusedRoutes: analysis.unusedRoutes.map((label) => within(at, label)),
    deadEnds: analysis.deadEnds.map((dead) => ({
      step: within(at, dead.step),
      missing: dead.missing,
      trail: dead.trail.map((name) => within(at, name)),
    })),
    nonTerminating: analysis.nonTerminating.map((why) => ({
      ...why,
      step: why.step === undefined ? at : within(at, why.step),
    })),
  };
}

function analyzeWithin(flow: AbstractFlow, options: AnalyzeOptions, chain: FlowChain): FlowAnalysis {
  const children = childrenOf(flow, chain, (child, down) => analyzeWithin(child, options, down));
  const { graph, walk, paths, truncated } = composedPaths(flow, options, children);
  const own = ownFindings(flow, graph, walk);
  const analysis: FlowAnalysis = {
    terminates: false,
    paths,
    unreachableSteps: flow.steps.filter((s) => !own.reached.has(s.name)).map((s) => s.name),
    unusedRoutes: own.unusedRoutes,
    deadEnds: own.deadEnds,
    nonTerminating: own.nonTerminating,
    stats: { states: graph.nodes.size, transitions: own.transitions, paths: paths.length, truncated },
  };
  // A child runs only if the step that runs it does: an unreachable step's child proves nothing.
  for (const child of children.filter((c) => own.reached.has(c.step.name))) {
    const found = childFindings(child);
    analysis.unreachableSteps.push(...found.unreachableSteps);
    analysis.unusedRoutes.push(...found.unusedRoutes);
    analysis.deadEnds.push(...found.deadEnds);
    analysis.nonTerminating.push(...found.nonTerminating);
    analysis.stats.truncated ||= child.analysis.stats.truncated;
  }
  analysis.terminates = analysis.nonTerminating.length === 0;
  return analysis;
}

/**
 * Proves termination on the flow's abstract state graph (built with `@xstate/graph`; its only choices
 * are outcomes), and finds unreachable steps, unused routes, dead ends and every path; a flow step or
 * a map step of flows composes its child's analysis (the parent terminates only if its children do;
 * their findings are named by their path, `review › grade`). A flow that contains itself through its
 * children is refused (`cycle`).
 */
export function analyzeFlow(flow: AbstractFlow, options: AnalyzeOptions = {}): FlowAnalysis {
  return analyzeWithin(flow, options, new FlowChain(flow));
}
