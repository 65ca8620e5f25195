import type { EvalCoverage } from '../evals/types.js';
import { type MarkedEdge, type MarkedNode, markEdges, markNodes } from './coverage-marks.js';
import { classToken, escapeHtml } from './escape.js';
import { pathOf } from './graph-svg.js';
import { clip, type GraphLayout, layoutGraph, type PlacedNode } from './layout.js';
import type { RunView, ViewEdge } from './model.js';

/** What an edge or a node no run of the dataset took says, in its `<title>`. */
export const NEVER_TAKEN = 'never taken by the dataset';
/** What a step or task no run of the dataset completed says, in its `<title>`. */
export const NEVER_COMPLETED = 'never completed by the dataset';

/** Colours as presentation attributes: the picture needs no style sheet, inline or alone. */
const PAINT = {
  covered: { stroke: '#0f766e', fill: '#ecfdf5', text: '#134e4a' },
  untaken: { stroke: '#dc2626', fill: '#fef2f2', text: '#991b1b' },
  unknown: { stroke: '#94a3b8', fill: '#f8fafc', text: '#334155' },
} as const;
type Paint = keyof typeof PAINT;

const n = (value: number) => Math.round(value * 10) / 10;

/** How many runs took an edge, as its label says it: `×3`, `never`, or nothing when unknown. */
const takenText = (taken: number | undefined) =>
  taken === undefined ? undefined : taken === 0 ? 'never' : `×${taken}`;

/** The edge as drawn: its route label and how many runs took it, so the layout gives the count its room. */
function shownEdge({ edge, taken }: MarkedEdge): ViewEdge {
  const parts = [edge.label, takenText(taken)].filter((p) => p !== undefined);
  const shown: ViewEdge = { from: edge.from, to: edge.to, taken: (taken ?? 0) > 0 };
  if (parts.length > 0) shown.label = parts.join(' ');
  if (edge.kind !== undefined) shown.kind = edge.kind;
  return shown;
}

const paintOfEdge = (taken: number | undefined): Paint =>
  taken === undefined ? 'unknown' : taken === 0 ? 'untaken' : 'covered';

function edgeTitle({ edge, taken }: MarkedEdge): string {
  const what = `${edge.from} → ${edge.to}${edge.label === undefined ? '' : ` (${edge.label})`}`;
  if (taken === undefined) return `${what}: not in the coverage`;
  return taken === 0 ? `${what}: ${NEVER_TAKEN}` : `${what}: taken by ${taken} run${taken === 1 ? '' : 's'}`;
}

function edgeSvg(marked: MarkedEdge, placed: GraphLayout['edges'][number]): string {
  const paint = paintOfEdge(marked.taken);
  const { stroke, text } = PAINT[paint];
  const classes = [
    'coverage-edge',
    paint,
    marked.edge.kind === undefined ? '' : classToken(marked.edge.kind),
  ];
  const label = placed.edge.label;
  const parts = [
    `<g class="${classes.filter(Boolean).join(' ')}" data-from="${escapeHtml(marked.edge.from)}"`,
    ` data-to="${escapeHtml(marked.edge.to)}" data-label="${escapeHtml(marked.edge.label ?? '')}"`,
    ` data-taken="${marked.taken ?? ''}" tabindex="0" aria-label="${escapeHtml(edgeTitle(marked))}">`,
    `<title>${escapeHtml(edgeTitle(marked))}</title>`,
    `<path d="${pathOf(placed.points, placed.orthogonal === true)}" fill="none" stroke="${stroke}"`,
    ` stroke-width="${paint === 'untaken' ? 2 : 1.6}"${paint === 'untaken' ? ' stroke-dasharray="6 4"' : ''}`,
    ` marker-end="url(#coverage-arrow-${paint})"/>`,
  ];
  if (label !== undefined && placed.labelAt !== undefined) {
    const shown = clip(label, 40);
    const width = shown.length * 6.3 + 12;
    const at = placed.labelAt;
    parts.push(
      `<rect x="${n(at.x - width / 2)}" y="${n(at.y - 9)}" width="${n(width)}" height="18" rx="9" fill="#ffffff" stroke="${stroke}"/>`,
      `<text x="${n(at.x)}" y="${n(at.y + 4)}" text-anchor="middle" font-size="11" fill="${text}">${escapeHtml(shown)}</text>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}

function nodeSvg(marked: MarkedNode, placed: PlacedNode): string {
  const { node } = marked;
  const paint: Paint = marked.covered === undefined ? 'unknown' : marked.covered ? 'covered' : 'untaken';
  const { stroke, fill, text } = PAINT[paint];
  const said =
    marked.covered === undefined ? '' : marked.covered ? 'completed by the dataset' : NEVER_COMPLETED;
  const title = `${node.label}${said === '' ? '' : `: ${said}`}`;
  const x = n(placed.x - placed.width / 2);
  const y = n(placed.y - placed.height / 2);
  return [
    `<g class="coverage-node ${paint} kind-${classToken(node.kind)}" data-node="${escapeHtml(node.id)}" transform="translate(${x},${y})"`,
    ` tabindex="0" aria-label="${escapeHtml(title)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<rect width="${placed.width}" height="${placed.height}" rx="8" fill="${fill}" stroke="${stroke}"`,
    ` stroke-width="1.6"${paint === 'untaken' ? ' stroke-dasharray="6 4"' : ''}/>`,
    `<text x="${placed.width / 2}" y="20" text-anchor="middle" font-size="13" fill="${text}">${escapeHtml(clip(node.label))}</text>`,
    `<text x="${placed.width / 2}" y="36" text-anchor="middle" font-size="11" fill="${text}">${escapeHtml(placed.caption)}</text>`,
    '</g>',
  ].join('');
}

const arrow = (paint: Paint) =>
  `<marker id="coverage-arrow-${paint}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${PAINT[paint].stroke}"/></marker>`;

/**
 * A definition's picture (its view, drawn as the run view draws it) read against an evaluation's
 * coverage: each edge labelled with how many of the dataset's runs took it, an edge no run took
 * dashed and red with the class `untaken` and a `<title>` saying it was never taken, a step or task
 * no run completed marked the same way. A standalone SVG (colours as attributes, no style sheet);
 * every text escaped.
 */
export function coverageSvg(view: RunView, coverage: EvalCoverage): string {
  const edges = markEdges(view.edges, coverage);
  const nodes = markNodes(view.nodes, coverage);
  const shown = edges.map(shownEdge);
  const markOf = new Map(shown.map((edge, i) => [edge, edges[i] as MarkedEdge]));
  const nodeOf = new Map(nodes.map((marked) => [marked.node, marked]));
  const laid = layoutGraph(view.nodes, shown);
  const width = Math.max(laid.width, 120);
  const height = Math.max(laid.height, 60);
  const title = `Coverage of ${view.name}`;
  return [
    `<svg class="coverage-graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}"`,
    ` width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}"`,
    ' font-family="system-ui, sans-serif">',
    `<title>${escapeHtml(title)}</title>`,
    `<defs>${arrow('covered')}${arrow('untaken')}${arrow('unknown')}</defs>`,
    '<g class="edges">',
    ...laid.edges.flatMap((placed) => {
      const marked = markOf.get(placed.edge);
      return marked === undefined ? [] : [edgeSvg(marked, placed)];
    }),
    '</g><g class="nodes">',
    ...laid.nodes.flatMap((placed) => {
      const marked = nodeOf.get(placed.node);
      return marked === undefined ? [] : [nodeSvg(marked, placed)];
    }),
    '</g></svg>',
  ].join('');
}
