import { classToken, escapeHtml } from './escape.js';
import { countsText, innerSvg } from './inner-box.js';
import {
  clip,
  type GraphLayout,
  type PlacedEdge,
  type PlacedFold,
  type PlacedNode,
  type Point,
} from './layout.js';
import type { ViewNode } from './model.js';

const n = (value: number) => Math.round(value * 10) / 10;

/**
 * A smooth path through dagre's edge points (quadratic curves through the midpoints), or with
 * `straight` a polyline through them.
 */
export function pathOf(points: readonly Point[], straight = false): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  const parts = [`M${n(first.x)},${n(first.y)}`];
  for (let i = 0; i < rest.length - 1; i += 1) {
    const p = rest[i] as Point;
    const q = rest[i + 1] as Point;
    parts.push(
      straight ? `L${n(p.x)},${n(p.y)}` : `Q${n(p.x)},${n(p.y)} ${n((p.x + q.x) / 2)},${n((p.y + q.y) / 2)}`,
    );
  }
  const last = rest.at(-1);
  if (last !== undefined) parts.push(`L${n(last.x)},${n(last.y)}`);
  return parts.join(' ');
}

/** How far a corner of a straight-run path is rounded, at most. */
const CORNER = 6;

/** A path of straight runs through the points, each corner rounded (the runs of a folded rank's corridors). */
function orthogonalPathOf(points: readonly Point[]): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  const parts = [`M${n(first.x)},${n(first.y)}`];
  let from = first;
  rest.forEach((corner, i) => {
    const next = rest[i + 1];
    if (next === undefined) {
      parts.push(`L${n(corner.x)},${n(corner.y)}`);
      return;
    }
    const before = Math.hypot(corner.x - from.x, corner.y - from.y);
    const after = Math.hypot(next.x - corner.x, next.y - corner.y);
    const r = Math.min(CORNER, before / 2, after / 2);
    const at = (to: Point, length: number) =>
      length === 0
        ? corner
        : { x: corner.x + ((to.x - corner.x) * r) / length, y: corner.y + ((to.y - corner.y) * r) / length };
    const into = at(from, before);
    const out = at(next, after);
    parts.push(`L${n(into.x)},${n(into.y)}`, `Q${n(corner.x)},${n(corner.y)} ${n(out.x)},${n(out.y)}`);
    from = corner;
  });
  return parts.join(' ');
}

function edgeSvg({ edge, points, labelAt, orthogonal }: PlacedEdge): string {
  const kind = edge.kind === undefined ? '' : classToken(edge.kind);
  const classes = ['edge', edge.taken ? 'taken' : 'idle', edge.back === true ? 'back' : '', kind].filter(
    Boolean,
  );
  const marker = !edge.taken ? 'arrow-idle' : edge.kind === 'failure' ? 'arrow-failure' : 'arrow-taken';
  const parts = [
    `<g class="${classes.join(' ')}" data-from="${escapeHtml(edge.from)}" data-to="${escapeHtml(edge.to)}">`,
    `<path d="${orthogonal === true ? orthogonalPathOf(points) : pathOf(points)}" marker-end="url(#${marker})"/>`,
  ];
  if (edge.label !== undefined && labelAt !== undefined) {
    const text = clip(edge.label, 32);
    const width = text.length * 6.3 + 12;
    parts.push(
      `<rect class="edge-label-box" x="${n(labelAt.x - width / 2)}" y="${n(labelAt.y - 9)}" width="${n(width)}" height="18" rx="9"/>`,
      `<text class="edge-label" x="${n(labelAt.x)}" y="${n(labelAt.y + 4)}" text-anchor="middle">${escapeHtml(text)}</text>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}

/** What a node's title says besides its label: status, a handled failure, what it waits for and until when. */
function titleOf(node: ViewNode, runs: string): string {
  const parts = [`${node.status}${node.handled === true ? ', handled' : ''}${runs}`];
  const timeoutAt = node.wait?.timeoutAt ?? node.human?.timeoutAt;
  if (node.wait !== undefined) parts.push(`waits for event ${node.wait.event}`);
  if (timeoutAt !== undefined) parts.push(`times out at ${new Date(timeoutAt).toISOString()}`);
  if (node.sleep?.wakeAt !== undefined) parts.push(`wakes at ${new Date(node.sleep.wakeAt).toISOString()}`);
  if (node.map?.counts !== undefined) parts.push(`items ${countsText(node.map.counts)}`);
  if (node.subflow !== undefined) parts.push(`flow ${node.subflow.flow}`);
  if (node.subflow?.waitsAt !== undefined) parts.push(`waits at ${node.subflow.waitsAt}`);
  return `${node.label} — ${parts.join(' · ')}`;
}

function nodeSvg(placed: PlacedNode): string {
  const { node, width, height } = placed;
  const x = n(placed.x - width / 2);
  const y = n(placed.y - height / 2);
  const runs = node.runs.length > 1 ? ` ×${node.runs.length}` : '';
  const title = titleOf(node, runs);
  const handled = node.handled === true ? ' handled' : '';
  // A map step is a group of item runs: boxes stacked behind its own.
  const stack =
    node.kind === 'map'
      ? `<rect class="box stack" x="8" y="-8" width="${width}" height="${height}" rx="8"/><rect class="box stack" x="4" y="-4" width="${width}" height="${height}" rx="8"/>`
      : '';
  return [
    `<g class="node status-${classToken(node.status)} kind-${classToken(node.kind)}${handled}" data-node="${escapeHtml(node.id)}"`,
    ` data-status="${classToken(node.status)}" transform="translate(${x},${y})" tabindex="0" role="button"`,
    ` aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    stack,
    `<rect class="box" width="${width}" height="${height}" rx="${node.kind === 'human' || node.kind === 'start' || node.kind === 'end' ? height / 2 : 8}"/>`,
    `<text class="label" x="${width / 2}" y="20" text-anchor="middle">${escapeHtml(clip(node.label))}</text>`,
    `<text class="caption" x="${width / 2}" y="36" text-anchor="middle">${escapeHtml(placed.caption + runs)}</text>`,
    innerSvg(node, width),
    '</g>',
  ].join('');
}

/** The arrow heads of taken, idle and taken failure edges. */
const DEFS = [
  '<defs>',
  '<marker id="arrow-taken" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow taken"/></marker>',
  '<marker id="arrow-idle" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow idle"/></marker>',
  '<marker id="arrow-failure" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrow failure"/></marker>',
  '</defs>',
].join('');

/** A folded rank's background: the box its rows and their corridors share. */
function foldSvg(fold: PlacedFold): string {
  const what = `${fold.count} nodes of one rank, folded into ${fold.rows} rows`;
  return [
    `<rect class="fold" x="${n(fold.x - fold.width / 2)}" y="${n(fold.y - fold.height / 2)}"`,
    ` width="${n(fold.width)}" height="${n(fold.height)}" rx="12"><title>${what}</title></rect>`,
  ].join('');
}

/**
 * The picture as inline SVG: folded ranks' backgrounds, edges (taken ones highlighted, route labels
 * on them, failure and timeout edges drawn apart), then a box per node coloured by status, each a
 * focusable `data-node` element the page's script makes clickable. Its `viewBox` is the whole
 * picture, its size in `data-width` and `data-height`: the page fits, zooms and pans it by moving
 * the `viewBox`. Every text is escaped.
 */
export function graphSvg(laid: GraphLayout, title: string, hasRun: boolean): string {
  const width = Math.max(laid.width, 120);
  const height = Math.max(laid.height, 60);
  return [
    `<svg class="graph${hasRun ? ' has-run' : ''}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}"`,
    ` width="${width}" height="${height}" data-width="${width}" data-height="${height}"`,
    ` preserveAspectRatio="xMidYMid meet" role="group" aria-label="${escapeHtml(title)}">`,
    DEFS,
    `<g class="folds">${laid.folds.map(foldSvg).join('')}</g>`,
    '<g class="edges">',
    ...laid.edges.map(edgeSvg),
    '</g><g class="nodes">',
    ...laid.nodes.map(nodeSvg),
    '</g></svg>',
  ].join('');
}
