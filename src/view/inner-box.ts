import { clip } from './clip.js';
import { classToken, escapeHtml } from './escape.js';
import type { ViewMap, ViewMapCounts, ViewNode, ViewStatus, ViewSubflow } from './model.js';

/** What a box holds below its label and caption: a map's counts, a child flow's steps. */
export interface InnerSize {
  width: number;
  height: number;
}

/** Where a box's own lines end: what it holds starts here. */
const HEAD = 46;
const CAPTION_CHAR = 6.3;
/** A child step's row in a flow step's box, and its indent per level of nesting. */
const ROW = 22;
const INDENT = 12;
/** Rows of child steps a box shows at most; one more says how many are left out. */
const MAX_ROWS = 12;
/** The counts' line and the progress bar of a map step's box. */
const COUNTS = 28;

const n = (value: number) => Math.round(value * 10) / 10;

/** What each item of a map step runs, as the picture says it: `crew summarize`, `flow review`, `function`. */
export function mapTargetText(map: Pick<ViewMap, 'runs' | 'target'>): string {
  const runs = map.runs ?? 'items';
  return map.target === undefined ? runs : `${runs} ${map.target}`;
}

/** A map step run's counts as a line: `37/100 done · 2 failed · 4 running`. */
export function countsText(counts: ViewMapCounts): string {
  const parts = [`${counts.completed}/${counts.total} done`];
  if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  if (counts.running > 0) parts.push(`${counts.running} running`);
  return parts.join(' · ');
}

interface Row {
  depth: number;
  name: string;
  status: ViewStatus;
  kind: string;
}

/** A child flow's steps as rows, nested ones indented under their flow step. */
function rowsOf(subflow: ViewSubflow, depth = 0): Row[] {
  return subflow.steps.flatMap((step) => [
    { depth, name: step.name, status: step.status, kind: step.kind },
    ...(step.subflow === undefined ? [] : rowsOf(step.subflow, depth + 1)),
  ]);
}

/** The rows a box shows, and how many are left out. */
function shownRows(subflow: ViewSubflow): { rows: Row[]; more: number } {
  const rows = rowsOf(subflow);
  return rows.length > MAX_ROWS
    ? { rows: rows.slice(0, MAX_ROWS - 1), more: rows.length - MAX_ROWS + 1 }
    : { rows, more: 0 };
}

/** The room a node's box needs below its own lines. */
export function innerBox(node: ViewNode): InnerSize {
  if (node.subflow !== undefined) {
    const { rows, more } = shownRows(node.subflow);
    const count = rows.length + (more > 0 ? 1 : 0);
    if (count === 0) return { width: 0, height: 0 };
    const widest = Math.max(...rows.map((r) => r.depth * INDENT + clip(r.name).length * CAPTION_CHAR));
    return { width: Math.round(widest + 64), height: count * ROW + 8 };
  }
  const counts = node.map?.counts;
  if (counts !== undefined)
    return { width: Math.round(countsText(counts).length * CAPTION_CHAR + 24), height: COUNTS };
  return { width: 0, height: 0 };
}

/** A map step's counts line and a bar: completed, failed and running parts of its items. */
function countsSvg(counts: ViewMapCounts, width: number): string {
  const barWidth = width - 20;
  const part = (value: number) => (counts.total === 0 ? 0 : (barWidth * value) / counts.total);
  const done = part(counts.completed);
  const failed = part(counts.failed);
  const running = part(counts.running);
  const text = countsText(counts);
  return [
    `<g class="map-counts" data-total="${counts.total}" data-completed="${counts.completed}" data-failed="${counts.failed}" data-running="${counts.running}">`,
    `<text class="counts" x="${width / 2}" y="${HEAD + 6}" text-anchor="middle">${escapeHtml(text)}</text>`,
    `<rect class="meter" x="10" y="${HEAD + 12}" width="${n(barWidth)}" height="6" rx="3"/>`,
    `<rect class="meter-done" x="10" y="${HEAD + 12}" width="${n(done)}" height="6"/>`,
    `<rect class="meter-failed" x="${n(10 + done)}" y="${HEAD + 12}" width="${n(failed)}" height="6"/>`,
    `<rect class="meter-running" x="${n(10 + done + failed)}" y="${HEAD + 12}" width="${n(running)}" height="6"/>`,
    '</g>',
  ].join('');
}

/** A child flow's steps as rows of small boxes coloured by status, inside the flow step's box. */
function subflowSvg(subflow: ViewSubflow, width: number): string {
  const { rows, more } = shownRows(subflow);
  const parts = [`<g class="subflow" data-flow="${escapeHtml(subflow.flow)}">`];
  rows.forEach((row, i) => {
    const x = 10 + row.depth * INDENT;
    const y = HEAD + 2 + i * ROW;
    const title = `${row.name} — ${row.status}`;
    parts.push(
      `<g class="sub status-${classToken(row.status)} kind-${classToken(row.kind)}" data-sub-step="${escapeHtml(row.name)}" data-status="${classToken(row.status)}">`,
      `<title>${escapeHtml(title)}</title>`,
      `<rect class="chip" x="${x}" y="${y}" width="${n(width - 10 - x)}" height="${ROW - 4}" rx="5"/>`,
      `<text class="sub-label" x="${x + 8}" y="${y + 13}">${escapeHtml(clip(row.name))}</text>`,
      '</g>',
    );
  });
  if (more > 0) {
    const y = HEAD + 2 + rows.length * ROW + 13;
    parts.push(`<text class="sub-more" x="18" y="${y}">… ${more} more steps</text>`);
  }
  parts.push('</g>');
  return parts.join('');
}

/** What a node's box holds, drawn in the box's own coordinates (its width `width`). */
export function innerSvg(node: ViewNode, width: number): string {
  if (node.subflow !== undefined) return subflowSvg(node.subflow, width);
  if (node.map?.counts !== undefined) return countsSvg(node.map.counts, width);
  return '';
}
