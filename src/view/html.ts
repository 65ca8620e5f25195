import { cspHash } from './csp-hash.js';
import { escapeHtml, jsonForScript } from './escape.js';
import { graphSvg } from './graph-svg.js';
import { lanesEnd, lanesSvg } from './lanes-svg.js';
import { clip, type LayoutOptions, layoutGraph } from './layout.js';
import { type RunView, VIEW_STATUSES, type ViewStatus } from './model.js';
import { layoutOptionsOf, type RenderRunViewOptions } from './options.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { formatMs, timelineEnd, timelineSvg } from './timeline-svg.js';

/**
 * The page's policy: nothing loads from anywhere (no network, no frames, no forms), and only its own
 * style sheet and script run — allowed by their hashes, so an injected `<script>` or `onerror`
 * would be refused even if one got through the escaping.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${cspHash(PAGE_SCRIPT)}`,
  `style-src ${cspHash(PAGE_STYLE)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** What the legend says of a status that its name alone does not: waiting may still run, not-run will not. */
const STATUS_MEANINGS: Partial<Record<ViewStatus, string>> = {
  waiting: 'not reached yet',
  'not-run': 'will not run',
};

/** The legend: every status, and what the view holds of the executed path, handled failures and failure edges. */
function legend(view: RunView): string {
  const items = VIEW_STATUSES.map((status) => {
    const meaning = STATUS_MEANINGS[status];
    const text = meaning === undefined ? status : `${status} <span class="muted">· ${meaning}</span>`;
    return `<li data-status="${status}"><span class="swatch status-${status}"></span>${text}</li>`;
  });
  if (view.nodes.some((node) => node.handled === true)) {
    items.push('<li><span class="swatch status-failed handled"></span>failed, handled</li>');
  }
  if (view.status !== undefined) items.push('<li><span class="swatch path"></span>executed path</li>');
  if (view.edges.some((edge) => edge.kind === 'failure')) {
    items.push('<li><span class="swatch path failure"></span>on failure</li>');
  }
  return `<ul class="legend" aria-label="Legend">${items.join('')}</ul>`;
}

function totals(view: RunView): string {
  const { usage, costUsd, timeMs } = view.totals;
  const rows: [string, string][] = [
    ['Tokens', `${usage.inputTokens} in · ${usage.outputTokens} out`],
    ['Model calls', String(usage.calls)],
  ];
  if (costUsd !== undefined)
    rows.push(['Cost', `$${costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toFixed(6)}`]);
  if (timeMs !== undefined) rows.push(['Time', formatMs(timeMs)]);
  const cells = rows.map(([name, value]) => `<div><dt>${name}</dt><dd>${escapeHtml(value)}</dd></div>`);
  return `<dl class="totals">${cells.join('')}</dl>${agentTotals(view)}`;
}

/** What each agent spent, when more than one did: a coworker's calls under its own role. */
function agentTotals(view: RunView): string {
  const agents = Object.entries(view.totals.agents ?? {});
  if (agents.length < 2) return '';
  const cells = agents.map(([role, usage]) => {
    const spent = `${usage.calls} ${usage.calls === 1 ? 'call' : 'calls'} · ${usage.totalTokens} tokens`;
    return `<div data-agent="${escapeHtml(role)}"><dt title="${escapeHtml(role)}">${escapeHtml(clip(role, 24))}</dt><dd>${escapeHtml(spent)}</dd></div>`;
  });
  return `<dl class="totals agent-totals" aria-label="Usage by agent">${cells.join('')}</dl>`;
}

/** The agents' lanes and the messages between them, when agents of the run messaged each other. */
function lanesCard(view: RunView, end: number): string {
  if (view.lanes === undefined) return '';
  return [
    '<section class="card lanes-card"><h2>Messages between agents</h2>',
    '<p class="hint">A lane per agent: its task runs, and its answers to coworkers. An arrow is a message from one agent to another, the dashed arrow back its reply; a cross, a call refused. Click one to see it.</p>',
    `<div class="scroll">${lanesSvg(view.lanes, end)}</div></section>`,
  ].join('');
}

function meta(view: RunView): string {
  const parts = [view.kind === 'crew' ? `crew · ${escapeHtml(view.process ?? '')}` : 'flow'];
  if (view.id !== undefined) parts.push(`<code>${escapeHtml(view.id)}</code>`);
  if (view.totals.startedAt !== undefined)
    parts.push(escapeHtml(new Date(view.totals.startedAt).toISOString()));
  parts.push(
    view.status === undefined
      ? 'definition'
      : `<span class="badge status-${statusClass(view.status)}">${escapeHtml(view.status)}</span>`,
  );
  return `<p class="meta">${parts.join(' · ')}</p>`;
}

/** The colour a run's status borrows from the node statuses. */
function statusClass(status: NonNullable<RunView['status']>): string {
  if (status === 'completed') return 'completed';
  if (status === 'paused') return 'paused';
  if (status === 'running') return 'running';
  if (status === 'partial' || status === 'interrupted') return 'blocked';
  return 'failed';
}

/** The zoom buttons, the search box and its count: every one reachable by Tab. */
const GRAPH_TOOLBAR = [
  '<div class="toolbar" role="toolbar" aria-label="Graph controls">',
  '<input type="search" id="graph-search" placeholder="Find a node: name, agent or id" aria-label="Find a node by name, agent or id" autocomplete="off" spellcheck="false">',
  '<output id="search-count" for="graph-search" aria-live="polite"></output>',
  '<button type="button" data-zoom="out" aria-label="Zoom out" title="Zoom out (−)">−</button>',
  '<output id="zoom-level" aria-live="polite">100%</output>',
  '<button type="button" data-zoom="in" aria-label="Zoom in" title="Zoom in (+)">+</button>',
  '<button type="button" data-zoom="fit" aria-label="Fit the graph to its box" title="Fit (0)">Fit</button>',
  '</div>',
].join('');

/**
 * The graph's card around a legend and a picture (either may be empty: a live page fills them in):
 * its toolbar, and the box the page fits, zooms and pans.
 */
export function graphCardShell(legendHtml: string, pictureHtml: string): string {
  return [
    `<section class="card graph-card"><div class="card-head"><h2>Graph</h2>${GRAPH_TOOLBAR}</div>`,
    legendHtml,
    '<div id="graph-viewport" class="viewport" tabindex="0" aria-label="Graph: drag or use the arrow keys to pan, + and − to zoom, 0 to fit; Tab reaches its nodes">',
    pictureHtml,
    '</div>',
    '<p class="hint">Drag or use the arrow keys to pan · Ctrl/⌘ + wheel, + or − to zoom · 0 fits · Tab reaches each node, Enter opens it</p>',
    '</section>',
  ].join('');
}

/** The graph's card: its toolbar, its legend, and the picture in a box the page fits, zooms and pans. */
function graphCard(view: RunView, options: LayoutOptions): string {
  const laid = layoutGraph(view.nodes, view.edges, options);
  const title = `${view.name} — ${view.kind === 'crew' ? `${view.process ?? ''} crew` : 'flow'}`;
  return graphCardShell(legend(view), graphSvg(laid, title, view.status !== undefined));
}

/** The failed and blocked nodes, each a button to its node: the page's script fills it from the data. */
const FAILURES_CARD = [
  '<section id="failures" class="card failures-card" aria-labelledby="failures-title" hidden>',
  '<h2 id="failures-title">Failed and blocked</h2><ul class="failures"></ul>',
  '</section>',
].join('');

/** The hint the details panel shows until a node is chosen. */
export const PANEL_HINT =
  '<h2>Details</h2><p class="hint">Click a node or a timeline bar (or focus it and press Enter) to see its prompt, context, output, usage, cost and error.</p>';

/** The side column: the failed and blocked nodes, and the details panel. */
export const SIDE_HTML = `<div class="side">${FAILURES_CARD}<aside id="panel" class="card" aria-live="polite">${PANEL_HINT}</aside></div>`;

/** The timeline's card around its picture, with `headHtml` (a page's own marks) between its title and the picture. */
export function timelineCardShell(pictureHtml: string, headHtml = ''): string {
  return `<section class="card timeline-card"><h2>Timeline</h2>${headHtml}<div class="scroll">${pictureHtml}</div></section>`;
}

/**
 * One self-contained HTML page of a run view: the graph as inline SVG laid out now (statuses
 * coloured, the executed path highlighted, route labels on the edges, a legend; a rank of more than
 * `maxRowNodes` nodes folded into rows), fitted to its box at load, with zoom, pan and a search box;
 * a list of the failed and blocked nodes; a timeline of the node runs; and a panel that shows a
 * chosen node's prompt, context, output, usage, cost and error. Graph, details and timeline each
 * have their own area. It needs no network: inline style, one small inline script, allowed by hash
 * in a strict Content-Security-Policy. Every text is escaped; node details travel in a JSON block
 * with `<`, `>`, `&`, U+2028 and U+2029 escaped and reach the page through `textContent` only.
 * A wrong option throws `invalid_option`.
 *
 * @example
 * const html = renderRunView(toCrewView(crew, { output, events }), { maxRowNodes: 16 });
 * await writeFile('run.html', html);
 */
export function renderRunView(view: RunView, options?: RenderRunViewOptions): string {
  const layout = layoutOptionsOf(options, 'renderRunView');
  // The timeline and the agents' lanes share one time scale.
  const end = timelineEnd(view.timeline, Math.max(view.totals.timeMs ?? 0, lanesEnd(view.lanes)));
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(`statecrew · ${view.name}`)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    `<header><div><h1>${escapeHtml(view.name)}</h1>${meta(view)}</div>${totals(view)}</header>`,
    '<main>',
    graphCard(view, layout),
    SIDE_HTML,
    timelineCardShell(timelineSvg(view.timeline, end)),
    lanesCard(view, end),
    '</main>',
    `<script type="application/json" id="run-data">${jsonForScript(view)}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
