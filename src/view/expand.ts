import type { DagrePlacement } from './dagre-run.js';
import { cellAt, foldRoute, type PlacedFoldGrid, routeWithinFold } from './fold-routes.js';
import type { GraphLayout, PlacedEdge, PlacedFold, PlacedNode, Point } from './picture.js';
import { type FoldSeat, type ReducedGraph, WITHIN_FOLD } from './reduce.js';

/** Each fold's grid, placed where dagre put its stand-in box. */
function placeGrids(reduced: ReducedGraph, placement: DagrePlacement): Map<string, PlacedFoldGrid> {
  return new Map(
    reduced.folds.map((fold) => {
      const centre = placement.centres.get(fold.id) ?? { x: 0, y: 0 };
      return [fold.id, { fold, left: centre.x - fold.width / 2, top: centre.y - fold.height / 2 }];
    }),
  );
}

/** An edge's points, its ends in folds routed through the grids to their members. */
function pointsOf(
  points: readonly Point[],
  ends: [FoldSeat | undefined, FoldSeat | undefined],
  grids: ReadonlyMap<string, PlacedFoldGrid>,
  boxes: ReducedGraph['boxes'],
  ids: [string, string],
): Point[] {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return [];
  let routed = [...points];
  const [from, to] = ends;
  const fromGrid = from === undefined ? undefined : grids.get(from.fold.id);
  const toGrid = to === undefined ? undefined : grids.get(to.fold.id);
  const box = (id: string) => boxes.get(id) ?? { width: 0, height: 0 };
  if (from !== undefined && fromGrid !== undefined) {
    routed = [...foldRoute(fromGrid, from.index, box(ids[0]), first, 'out'), ...routed.slice(1)];
  }
  if (to !== undefined && toGrid !== undefined) {
    routed = [...routed.slice(0, -1), ...foldRoute(toGrid, to.index, box(ids[1]), last, 'in')];
  }
  return routed;
}

/** The view's edges on the picture, each along its dagre route or its way inside a fold. */
function placeEdges(
  reduced: ReducedGraph,
  placement: DagrePlacement,
  grids: ReadonlyMap<string, PlacedFoldGrid>,
): PlacedEdge[] {
  const { seats, boxes } = reduced;
  const box = (id: string) => boxes.get(id) ?? { width: 0, height: 0 };
  return reduced.viewEdges.flatMap((edge, i): PlacedEdge[] => {
    const follows = reduced.follows[i];
    const ends: [FoldSeat | undefined, FoldSeat | undefined] = [seats.get(edge.from), seats.get(edge.to)];
    if (follows === WITHIN_FOLD && ends[0] !== undefined && ends[1] !== undefined) {
      const grid = grids.get(ends[0].fold.id);
      if (grid === undefined) return [];
      const points = routeWithinFold(grid, ends[0].index, ends[1].index, [box(edge.from), box(edge.to)]);
      return [{ edge, points, labelAt: undefined, orthogonal: true }];
    }
    const route = follows === undefined ? undefined : placement.routes.get(follows);
    if (route === undefined) return [];
    const points = pointsOf(route.points, ends, grids, boxes, [edge.from, edge.to]);
    // A label on a merged route would stand for all its edges: only an unmerged edge keeps one.
    const labelAt = edge.label === undefined ? undefined : route.labelAt;
    return [{ edge, points, labelAt, ...(ends[0] || ends[1] ? { orthogonal: true } : {}) }];
  });
}

/**
 * The laid-out picture from dagre's placement of the reduced graph: nodes at their centres, folded
 * nodes in their grid cells, edges along dagre's routes and on through the grids.
 */
export function expandLayout(reduced: ReducedGraph, placement: DagrePlacement): GraphLayout {
  const grids = placeGrids(reduced, placement);
  const nodes = reduced.viewNodes.map((node): PlacedNode => {
    const box = reduced.boxes.get(node.id) ?? { width: 0, height: 0, caption: '' };
    const seat = reduced.seats.get(node.id);
    const grid = seat === undefined ? undefined : grids.get(seat.fold.id);
    const at =
      seat !== undefined && grid !== undefined
        ? cellAt(grid, seat.index)
        : (placement.centres.get(node.id) ?? { x: 0, y: 0 });
    return { node, x: at.x, y: at.y, width: box.width, height: box.height, caption: box.caption };
  });
  const folds = [...grids.values()].map(
    ({ fold, left, top }): PlacedFold => ({
      x: left + fold.width / 2,
      y: top + fold.height / 2,
      width: fold.width,
      height: fold.height,
      count: fold.members.length,
      rows: fold.rows,
    }),
  );
  const edges = placeEdges(reduced, placement, grids);
  return { width: placement.width, height: placement.height, nodes, edges, folds };
}
