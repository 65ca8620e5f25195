import { Graph, layout } from '@dagrejs/dagre';
import { clip } from './clip.js';
import type { Point } from './picture.js';
import type { ReducedGraph } from './reduce.js';

/** What dagre gave: each box's centre, each edge's points and label spot, the picture's size. */
export interface DagrePlacement {
  width: number;
  height: number;
  centres: Map<string, Point>;
  routes: Map<string, { points: Point[]; labelAt: Point | undefined }>;
}

interface NodeLabel {
  width: number;
  height: number;
  x?: number;
  y?: number;
}

interface EdgeLabel {
  width?: number;
  height?: number;
  labelpos?: 'c';
  points?: Point[];
  x?: number;
  y?: number;
}

/** Rough advance width of the 11px edge labels, for their room. */
const LABEL_CHAR = 6.3;

/** One dagre run: in the list order of the boxes and edges, or in the order dagre finds best. */
export function runDagre(reduced: ReducedGraph, keepOrder: boolean): DagrePlacement {
  const g = new Graph<Record<string, unknown>, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 46, edgesep: 14, marginx: 16, marginy: 16 });
  for (const node of reduced.nodes) g.setNode(node.id, { width: node.width, height: node.height });
  for (const edge of reduced.edges) {
    const label: EdgeLabel =
      edge.label === undefined
        ? {}
        : { width: clip(edge.label, 32).length * LABEL_CHAR + 12, height: 18, labelpos: 'c' };
    g.setEdge(edge.from, edge.to, label, edge.name);
  }
  layout(g, { disableOptimalOrderHeuristic: keepOrder });
  const centres = new Map(
    reduced.nodes.map((node) => [node.id, { x: g.node(node.id).x ?? 0, y: g.node(node.id).y ?? 0 }]),
  );
  const routes = new Map(
    reduced.edges.map((edge) => {
      const at = g.edge({ v: edge.from, w: edge.to, name: edge.name });
      const labelAt =
        edge.label !== undefined && at.x !== undefined && at.y !== undefined
          ? { x: at.x, y: at.y }
          : undefined;
      return [edge.name, { points: at.points ?? [], labelAt }];
    }),
  );
  const size = g.graph();
  return {
    width: Math.ceil(Number(size.width ?? 0)),
    height: Math.ceil(Number(size.height ?? 0)),
    centres,
    routes,
  };
}
