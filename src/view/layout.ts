import { Graph, layout } from '@dagrejs/dagre';
import { crossings } from './crossings.js';
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
}

/** A laid-out picture. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const NODE_HEIGHT = 46;
/** Rough advance widths of the picture's fonts (13px labels, 11px captions), for sizing boxes. */
const LABEL_CHAR = 7.6;
const CAPTION_CHAR = 6.3;
const MAX_LABEL = 40;

/** A label cut to fit a node box. */
export function clip(text: string, max = MAX_LABEL): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const KIND_CAPTIONS: Readonly<Record<string, string>> = {
  task: 'task',
  manager: 'manager',
  synthesis: 'synthesis',
  judge: 'judge',
  summary: 'summary',
  start: 'start',
  end: 'end',
  step: 'step',
  router: '◇ router',
  human: '☺ human',
  wait: '◷ wait',
  sleep: '☾ sleep',
};

/** An epoch ms time in a caption's room: `2026-12-02 15:38Z` (UTC). */
export function shortTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/**
 * What follows a node's kind on its second line: a handled failure, the event waited for, the wake
 * time, the agent (and the coworkers it sent messages to).
 */
function captionDetail(node: ViewNode): string | undefined {
  if (node.handled === true) return 'failure handled';
  if (node.wait !== undefined && node.wait.event !== '') return node.wait.event;
  if (node.sleep?.wakeAt !== undefined) return `until ${shortTime(node.sleep.wakeAt)}`;
  const coworkers = [...new Set((node.messages ?? []).flatMap((m) => (m.code === undefined ? [m.to] : [])))];
  if (node.agent !== undefined && coworkers.length > 0) return `${node.agent} → ${coworkers.join(', ')}`;
  return node.agent;
}

/** What a node's second line says: its kind, and its handled failure, event, wake time or agent. */
export function captionOf(node: ViewNode): string {
  const kind = KIND_CAPTIONS[node.kind] ?? node.kind;
  const detail = captionDetail(node);
  return clip(detail === undefined ? kind : `${kind} · ${detail}`);
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

/** One dagre run: in the list order of the nodes and edges, or in the order dagre finds best. */
function runDagre(nodes: readonly ViewNode[], edges: readonly ViewEdge[], keepOrder: boolean): GraphLayout {
  const g = new Graph<Record<string, unknown>, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 46, edgesep: 14, marginx: 16, marginy: 16 });
  const captions = new Map<string, string>();
  for (const node of nodes) {
    const caption = captionOf(node);
    captions.set(node.id, caption);
    const width = Math.max(96, clip(node.label).length * LABEL_CHAR + 28, caption.length * CAPTION_CHAR + 24);
    g.setNode(node.id, { width: Math.round(width), height: NODE_HEIGHT });
  }
  edges.forEach((edge, i) => {
    if (!g.hasNode(edge.from) || !g.hasNode(edge.to)) return;
    const label: EdgeLabel =
      edge.label === undefined
        ? {}
        : { width: clip(edge.label, 32).length * CAPTION_CHAR + 12, height: 18, labelpos: 'c' };
    g.setEdge(edge.from, edge.to, label, `e${i}`);
  });
  layout(g, { disableOptimalOrderHeuristic: keepOrder });
  const placedNodes = nodes.map((node): PlacedNode => {
    const at = g.node(node.id);
    const caption = captions.get(node.id) ?? '';
    return { node, x: at.x ?? 0, y: at.y ?? 0, width: at.width, height: at.height, caption };
  });
  const placedEdges = edges.flatMap((edge, i): PlacedEdge[] => {
    const at = g.edge({ v: edge.from, w: edge.to, name: `e${i}` });
    if (at === undefined) return [];
    const labelAt =
      edge.label !== undefined && at.x !== undefined && at.y !== undefined ? { x: at.x, y: at.y } : undefined;
    return [{ edge, points: at.points ?? [], labelAt }];
  });
  const size = g.graph();
  return {
    width: Math.ceil(Number(size.width ?? 0)),
    height: Math.ceil(Number(size.height ?? 0)),
    nodes: placedNodes,
    edges: placedEdges,
  };
}

/** Past this many edges, counting crossings costs more than it is worth: dagre's order is kept. */
const CROSSING_CHECK_LIMIT = 200;

/**
 * Lays out a view's nodes and edges top to bottom with dagre, at generation time: the page that
 * shows it computes nothing. Edge labels get their own room, so route names never cover a node.
 * Siblings stay in list order (tasks as the crew lists them, steps as the flow defines them) unless
 * dagre's own ordering crosses fewer edges.
 */
export function layoutGraph(nodes: readonly ViewNode[], edges: readonly ViewEdge[]): GraphLayout {
  const best = runDagre(nodes, edges, false);
  if (edges.length > CROSSING_CHECK_LIMIT) return best;
  const ordered = runDagre(nodes, edges, true);
  return crossings(ordered.edges) <= crossings(best.edges) ? ordered : best;
}
