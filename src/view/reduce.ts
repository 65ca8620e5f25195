import type { Fold, Size } from './fold.js';
import type { ViewEdge, ViewNode } from './model.js';

/** A box dagre places: a node, or a fold standing in for its members. */
export interface ReducedNode extends Size {
  id: string;
}

/** An edge dagre routes; `name` tells apart edges between the same two boxes. */
export interface ReducedEdge {
  name: string;
  from: string;
  to: string;
  label?: string;
}

/** Where a node of a fold sits in its grid. */
export interface FoldSeat {
  fold: Fold;
  index: number;
}

/**
 * The picture as dagre lays it out: each fold one box, the edges to its members merged into one
 * per neighbour (labelled edges keep their own, for their label's room); and what each view edge
 * follows: a dagre edge's name, `within` (both ends in one fold), or nothing (an end is missing).
 */
export interface ReducedGraph {
  nodes: ReducedNode[];
  edges: ReducedEdge[];
  viewNodes: readonly ViewNode[];
  viewEdges: readonly ViewEdge[];
  boxes: ReadonlyMap<string, Size & { caption: string }>;
  folds: readonly Fold[];
  seats: ReadonlyMap<string, FoldSeat>;
  follows: (string | undefined)[];
}

/** The edge name that marks a view edge between two members of one fold. */
export const WITHIN_FOLD = 'within';

/** Each folded node's seat: its fold and its place in the grid. */
function seatsOf(folds: readonly Fold[]): Map<string, FoldSeat> {
  const seats = new Map<string, FoldSeat>();
  for (const fold of folds) {
    fold.members.forEach((id, index) => {
      seats.set(id, { fold, index });
    });
  }
  return seats;
}

/** Dagre's boxes in list order, a fold where its first member stood. */
function reducedNodes(
  nodes: readonly ViewNode[],
  boxes: ReadonlyMap<string, Size>,
  seats: Map<string, FoldSeat>,
) {
  const placed: ReducedNode[] = [];
  for (const node of nodes) {
    const seat = seats.get(node.id);
    if (seat === undefined) {
      const box = boxes.get(node.id) ?? { width: 0, height: 0 };
      placed.push({ id: node.id, width: box.width, height: box.height });
    } else if (seat.index === 0) {
      placed.push({ id: seat.fold.id, width: seat.fold.width, height: seat.fold.height });
    }
  }
  return placed;
}

/** The graph dagre lays out, with folds standing in for their members. */
export function reduceGraph(
  nodes: readonly ViewNode[],
  edges: readonly ViewEdge[],
  boxes: ReadonlyMap<string, Size & { caption: string }>,
  folds: readonly Fold[],
): ReducedGraph {
  const seats = seatsOf(folds);
  const reduced: ReducedEdge[] = [];
  const merged = new Set<string>();
  const follows = edges.map((edge, i): string | undefined => {
    if (!boxes.has(edge.from) || !boxes.has(edge.to)) return undefined;
    const from = seats.get(edge.from)?.fold.id ?? edge.from;
    const to = seats.get(edge.to)?.fold.id ?? edge.to;
    if (from === to && seats.has(edge.from)) return WITHIN_FOLD;
    const folded = from !== edge.from || to !== edge.to;
    const name = folded && edge.label === undefined ? `${from}\u0000${to}` : `e${i}`;
    if (merged.has(name)) return name;
    merged.add(name);
    reduced.push({ name, from, to, ...(edge.label === undefined ? {} : { label: edge.label }) });
    return name;
  });
  const viewNodes = nodes;
  const placed = reducedNodes(nodes, boxes, seats);
  return { nodes: placed, edges: reduced, viewNodes, viewEdges: edges, boxes, folds, seats, follows };
}
