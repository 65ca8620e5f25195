import type { EvalCoverage } from '../evals/types.js';
import type { ViewEdge, ViewNode } from './model.js';

/** A coverage edge: how many of the dataset's runs took one edge of the picture. */
type CoverageEdge = EvalCoverage['edges'][number];

/** An edge of the picture and what the dataset's runs did of it; `taken` is undefined when the coverage names no such edge. */
export interface MarkedEdge {
  edge: ViewEdge;
  taken: number | undefined;
}

/** A node of the picture and whether some run of the dataset completed it (undefined: the coverage does not say). */
export interface MarkedNode {
  node: ViewNode;
  covered: boolean | undefined;
}

/** A route label's own name: `small` of `small · or` (the gate a view adds after it). */
const routeOf = (label: string | undefined) => label?.split(' · ')[0];

/**
 * The coverage edge that names `edge`: the one with its `from`, `to` and `label`; else the one with its
 * `from` and `to` whose label names the same route (a view adds the gate: `small · or`); else the only
 * one between its two nodes.
 */
export function coverageEdgeOf(edge: ViewEdge, edges: readonly CoverageEdge[]): CoverageEdge | undefined {
  const between = edges.filter((e) => e.from === edge.from && e.to === edge.to);
  return (
    between.find((e) => e.label === edge.label) ??
    between.find((e) => routeOf(e.label) === routeOf(edge.label)) ??
    (between.length === 1 ? between[0] : undefined)
  );
}

/** Each edge of a picture with how many runs took it, as `coverage.edges` counts them. */
export function markEdges(edges: readonly ViewEdge[], coverage: EvalCoverage): MarkedEdge[] {
  return edges.map((edge) => ({ edge, taken: coverageEdgeOf(edge, coverage.edges)?.taken }));
}

/** Each node of a picture with whether some run completed it, as `coverage.nodes` lists them. */
export function markNodes(nodes: readonly ViewNode[], coverage: EvalCoverage): MarkedNode[] {
  const covered = new Set(coverage.nodes.covered);
  const uncovered = new Set(coverage.nodes.uncovered);
  return nodes.map((node) => ({
    node,
    covered: covered.has(node.id) ? true : uncovered.has(node.id) ? false : undefined,
  }));
}
