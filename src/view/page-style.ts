import type { ViewStatus } from './model.js';

/** Fill and stroke of each status: boxes, bars, badges and the legend share them. */
export const STATUS_COLOURS: Readonly<Record<ViewStatus, { fill: string; stroke: string }>> = {
  completed: { fill: '#e6f4ea', stroke: '#1e8e3e' },
  running: { fill: '#e8f0fe', stroke: '#1a73e8' },
  waiting: { fill: '#f1f3f4', stroke: '#80868b' },
  paused: { fill: '#f3e8fd', stroke: '#9334e6' },
  failed: { fill: '#fce8e6', stroke: '#d93025' },
  blocked: { fill: '#fef7e0', stroke: '#e37400' },
  'not-run': { fill: '#ffffff', stroke: '#bdc1c6' },
};

const statusRules = Object.entries(STATUS_COLOURS)
  .map(
    ([status, { fill, stroke }]) =>
      `.status-${status} .box, .swatch.status-${status} { fill: ${fill}; stroke: ${stroke}; background: ${fill}; border-color: ${stroke}; }\n` +
      `.bar.status-${status} { fill: ${stroke}; }\n` +
      `.node .sub.status-${status} .chip { fill: ${fill}; stroke: ${stroke}; }\n` +
      `.badge.status-${status} { background: ${fill}; color: ${stroke}; border-color: ${stroke}; }`,
  )
  .join('\n');

/** The page's whole style sheet: no fonts, images or anything else to fetch. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #202124; --muted: #5f6368; --line: #dadce0; --accent: #1a73e8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; color: var(--ink); background: #f8f9fa; }
header { padding: 16px 24px 12px; background: #fff; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 8px 32px; align-items: baseline; }
h1 { font-size: 20px; margin: 0; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 12px; margin: 14px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.meta { margin: 0; color: var(--muted); }
.meta code { font-size: 12px; }
.totals { display: flex; gap: 20px; margin: 0; }
.totals div { display: flex; flex-direction: column; }
.totals dt { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.totals dd { margin: 0; font-weight: 600; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 400px; grid-template-rows: auto auto auto 1fr; grid-template-areas: "graph side" "timeline side" "lanes side" ". side"; gap: 16px; padding: 16px 24px 24px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; min-width: 0; }
.graph-card { grid-area: graph; }
.timeline-card { grid-area: timeline; }
.lanes-card { grid-area: lanes; }
.side { grid-area: side; align-self: start; position: sticky; top: 12px; max-height: calc(100vh - 24px); display: flex; flex-direction: column; gap: 16px; min-height: 0; }
.failures-card { flex: 0 1 auto; max-height: 38%; overflow: auto; }
.failures-card[hidden] { display: none; }
#panel { flex: 1 1 auto; min-height: 160px; overflow: auto; }
.scroll { overflow: auto; }
.timeline-card .scroll { max-height: 70vh; }
.timeline-card svg.timeline, .lanes-card svg.lanes { width: 100%; height: auto; min-width: 720px; }
.card-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 16px; margin: 0 0 8px; }
.card-head h2 { margin: 0; }
.toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }
.toolbar input { font: inherit; font-size: 13px; width: 240px; padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; }
.toolbar button { font: inherit; font-size: 14px; min-width: 32px; padding: 2px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); cursor: pointer; }
.toolbar button:hover { background: #f1f3f4; }
.toolbar output { font-size: 12px; color: var(--muted); min-width: 44px; text-align: center; font-variant-numeric: tabular-nums; }
#search-count { min-width: 0; }
.viewport { position: relative; height: calc(100vh - 250px); min-height: 220px; overflow: hidden; border: 1px solid #eceff1; border-radius: 8px; background: #fcfcfd; cursor: grab; touch-action: none; }
.viewport.panning { cursor: grabbing; user-select: none; }
.viewport svg.graph { display: block; width: 100%; height: 100%; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.viewport:focus-visible { outline-offset: -3px; }
.fold { fill: #f4f6f8; stroke: #e3e6e8; }
.graph.searching .node:not(.match) { opacity: .35; }
.node.match .box { stroke: #f9ab00; stroke-width: 4; }
.node.current-match .box { stroke: #e37400; stroke-width: 5; }
ul.failures { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
button.failure { display: flex; flex-direction: column; gap: 2px; width: 100%; text-align: left; font: inherit; font-size: 13px; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); cursor: pointer; }
button.failure:hover { background: #f8f9fa; }
.failure-head { display: flex; gap: 8px; align-items: center; }
.failure-head strong { overflow-wrap: anywhere; }
.failure-reason { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 0 0 8px; padding: 0; list-style: none; font-size: 12px; color: var(--muted); }
.legend li { display: flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 14px; height: 14px; border: 2px solid; border-radius: 4px; }
.swatch.status-not-run, .swatch.status-waiting { border-style: dashed; }
.legend .muted { color: var(--muted); opacity: .8; }
.swatch.path { width: 22px; height: 0; border: 0; border-top: 3px solid var(--accent); border-radius: 0; }
svg text { font-family: inherit; }
.node { cursor: pointer; outline: none; }
.node:focus-visible .box { stroke: var(--accent); stroke-width: 5; }
.node:focus-visible { filter: drop-shadow(0 0 4px rgba(26, 115, 232, .8)); }
.node .box { stroke-width: 2; }
.node.status-not-run .box, .node.status-waiting .box { stroke-dasharray: 5 3; }
.node .label { font-size: 13px; font-weight: 600; fill: var(--ink); }
.node .caption { font-size: 11px; fill: var(--muted); }
.node:hover .box { stroke-width: 3; }
.node.selected .box { stroke: var(--ink); stroke-width: 3.5; }
.node .stack { opacity: .55; }
.item-list, .sub-steps { margin: 4px 0; padding-left: 18px; font-size: 13px; }
.map-item, .sub-step { margin: 2px 0; }
.item-error { color: #d93025; font-size: 12px; overflow-wrap: anywhere; }
.more-items { color: var(--muted); font-size: 12px; }
.node .chip { stroke-width: 1.2; }
.node .sub.status-not-run .chip, .node .sub.status-waiting .chip { stroke-dasharray: 4 2; }
.node .sub-label, .node .sub-more, .node .counts { font-size: 11px; fill: var(--ink); }
.node .sub-more { fill: var(--muted); }
.node .meter { fill: #f1f3f4; }
.node .meter-done { fill: #1e8e3e; }
.node .meter-failed { fill: #d93025; }
.node .meter-running { fill: #1a73e8; }
.kind-flow .box:not(.chip) { stroke-width: 2.5; }
.kind-manager .box, .kind-judge .box, .kind-synthesis .box { stroke-width: 3; }
.edge path { fill: none; stroke: #9aa0a6; stroke-width: 1.6; }
.has-run .edge.idle path { stroke: #c8ccd0; stroke-dasharray: 5 4; }
.edge.taken path { stroke: var(--accent); stroke-width: 2.8; }
.edge.back path { stroke-dasharray: 2 3; }
.edge.taken.back path { stroke-dasharray: none; }
.arrow.taken { fill: var(--accent); }
.arrow.idle { fill: #9aa0a6; }
.edge-label-box { fill: #fff; stroke: #dadce0; }
.edge.taken .edge-label-box { stroke: var(--accent); }
.edge-label { font-size: 11px; fill: var(--muted); }
.edge.taken .edge-label { fill: var(--accent); font-weight: 600; }
.row { cursor: pointer; outline: none; }
.row-bg { fill: transparent; }
.row:hover .row-bg, .row.selected .row-bg { fill: #f1f3f4; }
.row:focus-visible .row-bg { fill: #e8f0fe; stroke: var(--accent); stroke-width: 2; }
.message:focus-visible .message-label { fill: var(--accent); }
.row-label { font-size: 12px; fill: var(--ink); }
.tick { stroke: #eceff1; }
.tick-label { font-size: 10px; fill: var(--muted); }
.bar.wait { fill: #c58af9; }
.bar.attempt-failed { fill: #d93025; }
.backoff { stroke: #80868b; stroke-dasharray: 3 3; stroke-width: 1.5; }
.empty, .hint { color: var(--muted); margin: 4px 0; }
.badge { display: inline-block; padding: 0 8px; border: 1px solid; border-radius: 10px; font-size: 12px; font-weight: 600; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; font-size: 13px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.runs { display: flex; flex-wrap: wrap; gap: 4px; margin: 8px 0 0; }
.runs button { font: inherit; font-size: 12px; padding: 1px 8px; border: 1px solid var(--line); border-radius: 10px; background: #fff; cursor: pointer; }
.runs button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
pre { margin: 0; padding: 8px 10px; background: #f8f9fa; border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.45 "DejaVu Sans Mono", "Liberation Mono", ui-monospace, monospace; max-height: 320px; overflow: auto; }
pre.error { background: #fce8e6; border-color: #f6aea9; }
ul.notes { margin: 4px 0 0; padding-left: 18px; }
@media (max-width: 1000px) { main { grid-template-columns: minmax(0, 1fr); grid-template-rows: none; grid-template-areas: "graph" "side" "timeline" "lanes"; } .side { position: static; max-height: none; } .failures-card { max-height: 40vh; } }
.graph .edge.failure path { stroke: #e8a29c; stroke-dasharray: 6 4; }
.graph .edge.failure.taken path { stroke: #d93025; stroke-dasharray: none; }
.graph .edge.failure .edge-label { fill: #d93025; }
.graph .edge.failure.taken .edge-label-box { stroke: #d93025; }
.graph .edge.timeout path { stroke-dasharray: 2 3; }
.graph .edge.timeout.taken path { stroke-dasharray: none; }
.arrow.failure { fill: #d93025; }
.graph .node.handled .box { stroke-dasharray: 7 3; }
.swatch.handled { border-style: dashed; }
.swatch.path.failure { border-top-color: #d93025; }
.agent-totals { padding-left: 20px; border-left: 1px solid var(--line); }
.agent-totals dt { text-transform: none; letter-spacing: 0; }
.lane-line { stroke: #e8eaed; stroke-width: 1; }
.span, g.message { cursor: pointer; outline: none; }
.span:focus-visible .bar, .span.selected .bar { stroke: var(--ink); stroke-width: 1.5; }
.bar.coworker { fill: #8ab4f8; }
.bar.coworker.msg-failed { fill: #f28b82; }
.bar.coworker.msg-waiting { fill: #c58af9; }
.message .ask, .message .reply { stroke: var(--accent); stroke-width: 1.6; }
.message .reply { stroke-dasharray: 4 3; }
.message .ask-head, .message .reply-head { fill: var(--accent); }
.message.msg-failed .reply { stroke: #d93025; }
.message.msg-failed .reply-head { fill: #d93025; }
.message .refusal { stroke: #d93025; stroke-width: 2.2; fill: none; }
.message-label { font-size: 11px; fill: var(--ink); paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.message.msg-refused .message-label { fill: #d93025; }
.message:hover .ask, .message:hover .reply, .message:focus-visible .ask, .message.selected .ask, .message.selected .reply { stroke-width: 2.8; }
.message.selected .message-label, .message:focus-visible .message-label { font-weight: 600; }
article.message { border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 6px; padding: 6px 10px 8px; margin: 6px 0 0; }
article.message.msg-failed, article.message.msg-refused { border-left-color: #d93025; }
article.message.msg-waiting { border-left-color: #9334e6; }
article.message.selected { background: #e8f0fe; }
article.message h3 { margin-top: 8px; }
.message-head { margin: 0; font-size: 13px; }
.message-state { margin: 0; font-size: 12px; color: var(--muted); }
pre.reply { background: #e6f4ea; border-color: #a8dab5; }
${statusRules}
`;
