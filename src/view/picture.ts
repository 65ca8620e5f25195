import type { ViewEdge, ViewNode } from './model.js';

/** A point of the picture, in SVG user units. */
export interface Point {
  x: number;
  y: number;
}

/** A node placed on the picture: its centre and size. */
export interface PlacedNode extends Point {
  node: ViewNode;
  width: number;
  height: number;
  /** The second line under the label: its kind and agent. */
  caption: string;
}

/** An edge routed on the picture, with where its label goes. */
export interface PlacedEdge {
  edge: ViewEdge;
  points: Point[];
  labelAt: Point | undefined;
  /** Routed through a folded rank's corridors: drawn as straight runs with rounded corners. */
  orthogonal?: boolean;
}

/** A rank folded into rows: the box around its grid (centre and size), its node count and rows. */
export interface PlacedFold extends Point {
  width: number;
  height: number;
  count: number;
  rows: number;
}

/** A laid-out picture. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  /** The ranks folded into rows; empty when every rank fits side by side. */
  folds: PlacedFold[];
}
