import { clip } from './clip.js';
import { crossings } from './crossings.js';
import { runDagre } from './dagre-run.js';
import { expandLayout } from './expand.js';
import { planFolds, type Size } from './fold.js';
import { innerBox, mapTargetText } from './inner-box.js';
import type { ViewEdge, ViewMap, ViewNode } from './model.js';
import type { GraphLayout } from './picture.js';
import { reduceGraph } from './reduce.js';

export { clip } from './clip.js';
export type { GraphLayout, PlacedEdge, PlacedFold, PlacedNode, Point } from './picture.js';

const NODE_HEIGHT = 46;
/** Rough advance widths of the picture's fonts (13px labels, 11px captions), for sizing boxes. */
const LABEL_CHAR = 7.6;
const CAPTION_CHAR = 6.3;

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
  map: '▦ map',
  flow: '▣ flow',
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
  if (node.subflow?.waitsAt !== undefined) return `waits at ${node.subflow.waitsAt}`;
  if (node.subflow !== undefined && node.subflow.flow !== '') return node.subflow.flow;
  if (node.map !== undefined) return mapCaption(node.map);
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

/** What a map step's caption says it runs: `crew summarize ×4`. */
function mapCaption(map: ViewMap): string | undefined {
  if (map.runs === undefined) return undefined;
  const each = mapTargetText(map);
  return map.concurrency === undefined ? each : `${each} ×${map.concurrency}`;
}

/** A node's box: wide enough for its label, its caption and what it holds (a map's counts, a child flow's steps). */
export function boxOf(node: ViewNode): Size & { caption: string } {
  const caption = captionOf(node);
  const inner = innerBox(node);
  const width = Math.max(
    96,
    clip(node.label).length * LABEL_CHAR + 28,
    caption.length * CAPTION_CHAR + 24,
    inner.width,
  );
  return { width: Math.round(width), height: NODE_HEIGHT + inner.height, caption };
}

/** How to lay a picture out. */
export interface LayoutOptions {
  /** The most nodes side by side in a rank: a rank with more is folded into rows. */
  maxRowNodes: number;
}

/** Folded into rows past this many nodes in a rank, unless told otherwise. */
export const DEFAULT_MAX_ROW_NODES = 12;

/** Past this many edges, counting crossings costs more than it is worth: dagre's order is kept. */
const CROSSING_CHECK_LIMIT = 200;

/**
 * Lays out a view's nodes and edges top to bottom with dagre, at generation time: the page that
 * shows it computes nothing. Edge labels get their own room, so route names never cover a node.
 * A rank with more than `maxRowNodes` nodes (a wide fan-out) is folded into rows, its edges run
 * along corridors between the rows and columns. Siblings stay in list order (tasks as the crew
 * lists them, steps as the flow defines them) unless dagre's own ordering crosses fewer edges.
 */
export function layoutGraph(
  nodes: readonly ViewNode[],
  edges: readonly ViewEdge[],
  options: LayoutOptions = { maxRowNodes: DEFAULT_MAX_ROW_NODES },
): GraphLayout {
  const boxes = new Map(nodes.map((node) => [node.id, boxOf(node)]));
  const ids = nodes.map((node) => node.id);
  const present = edges.filter((edge) => boxes.has(edge.from) && boxes.has(edge.to));
  const folds = planFolds(ids, present, boxes, options.maxRowNodes);
  const reduced = reduceGraph(nodes, edges, boxes, folds);
  const best = expandLayout(reduced, runDagre(reduced, false));
  if (edges.length > CROSSING_CHECK_LIMIT) return best;
  const ordered = expandLayout(reduced, runDagre(reduced, true));
  return crossings(ordered.edges) <= crossings(best.edges) ? ordered : best;
}
