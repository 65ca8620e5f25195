import { EVALS_STYLE } from './evals-page.js';

/**
 * The studio's own style, after the run view's: a bar, a column of runs and the start form beside
 * the open run, forms for what a paused run waits for, the text its models are writing. At 1,400 × 900
 * the graph keeps most of the screen (a run's checkpoints sit on its timeline, the chosen one's card
 * and fork editor below it; two runs compared fill the run column); below 1,100 px wide the runs column goes above the run, and the
 * answer forms sit beside the graph (above its details), not above it.
 */
export const STUDIO_STYLE = `
.studio-bar { padding: 10px 20px; align-items: center; justify-content: space-between; }
.studio-bar h1 { font-size: 17px; }
.studio-bar .muted { color: var(--muted); font-weight: 400; }
.studio { display: grid; grid-template-columns: 290px minmax(0, 1fr); gap: 0; min-height: calc(100vh - 50px); }
.studio-side { padding: 16px 0 16px 16px; display: flex; flex-direction: column; gap: 16px; min-width: 0; }
.studio-run { min-width: 0; }
.studio-run main { grid-template-columns: minmax(0, 1fr) 340px; padding-top: 12px; }
.studio-run .viewport { height: calc(100vh - 330px); }
#run-empty { padding: 32px 24px; }
.run-head { margin: 16px 24px 0; display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; justify-content: space-between; }
.run-header { display: flex; flex-wrap: wrap; gap: 8px 32px; align-items: baseline; }
.run-actions { display: flex; gap: 8px; align-items: center; }
#run-live { font-size: 12px; color: var(--muted); }
.run-note { flex-basis: 100%; margin: 0; padding: 6px 10px; font-size: 13px; background: #fef7e0; border: 1px solid #e37400; border-radius: 6px; }
.waits { margin: 12px 24px 0; border-color: #9334e6; }
#wait-forms { display: flex; flex-wrap: wrap; gap: 12px 24px; }
.wait-form { flex: 1 1 360px; display: flex; flex-direction: column; gap: 8px; }
.wait-form h3 { margin: 0; }
.writing { margin: 12px 24px 0; border-color: var(--accent); }
#writing-nodes { display: flex; flex-wrap: wrap; gap: 8px 24px; }
.writing-node { flex: 1 1 360px; min-width: 0; }
.writing-node h3 { margin: 0 0 4px; font-size: 13px; }
.writing-text { margin: 0; max-height: 160px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; }
.prompt { margin: 0; font-weight: 600; white-space: pre-wrap; overflow-wrap: anywhere; }
.routes, .choice { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
.crew-item { border: 1px solid var(--line); border-radius: 8px; display: flex; flex-direction: column; gap: 6px; }
.shown summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.shown pre { max-height: 180px; overflow: auto; margin: 4px 0 0; padding: 6px 8px; background: #f8f9fa; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
.field { display: flex; flex-direction: column; gap: 3px; font-size: 13px; }
.field-name { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.field input[type="text"], .field input[type="number"], .field input[type="password"], .field textarea, .field select { font: inherit; font-size: 13px; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; width: 100%; }
.field input[type="checkbox"] { align-self: flex-start; }
.field textarea { resize: vertical; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
button.primary, button.secondary { font: inherit; font-size: 13px; padding: 4px 12px; border-radius: 6px; cursor: pointer; border: 1px solid var(--accent); }
button.primary { background: var(--accent); color: #fff; }
button.secondary { background: #fff; color: var(--ink); border-color: var(--line); }
button:disabled { opacity: .6; cursor: progress; }
.form-error { color: #d93025; font-size: 13px; overflow-wrap: anywhere; }
.form-error[hidden] { display: none; }
.side-card h2 { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
.side-card form { display: flex; flex-direction: column; gap: 8px; }
#runs-status { font: inherit; font-size: 12px; }
#run-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; max-height: calc(100vh - 360px); overflow: auto; }
.run-item { display: flex; flex-direction: column; gap: 2px; width: 100%; text-align: left; font: inherit; font-size: 13px; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); cursor: pointer; }
.run-item:hover { background: #f8f9fa; }
.run-item[aria-current] { border-color: var(--accent); background: #e8f0fe; }
.run-item-head { display: flex; gap: 8px; align-items: center; min-width: 0; }
.run-item-head strong { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.run-id { font-size: 11px; color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.run-time { font-size: 11px; color: var(--muted); }
.run-fork { font-size: 11px; color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#token-card { margin: 16px 24px 0; max-width: 520px; }
[hidden] { display: none !important; }
.run-lineage { flex-basis: 100%; display: flex; flex-direction: column; gap: 2px; font-size: 13px; }
.lineage-line { margin: 0; overflow-wrap: anywhere; }
.studio-run main { grid-template-rows: auto auto auto auto 1fr; grid-template-areas: "graph side" "timeline side" "checkpoint side" "lanes side" ". side"; }
.checkpoint-track h3 { margin: 0 0 6px; }
#checkpoint-count { font-weight: 400; text-transform: none; letter-spacing: 0; }
#checkpoint-list { list-style: none; margin: 0 0 10px; padding: 0 0 4px; display: flex; gap: 2px; overflow-x: auto; border-top: 2px solid var(--line); }
.checkpoint-mark { display: flex; flex-direction: column; align-items: center; gap: 1px; font: inherit; font-size: 11px; padding: 0 6px 2px; border: 1px solid transparent; border-radius: 0 0 6px 6px; background: none; color: var(--ink); cursor: pointer; }
.checkpoint-mark .swatch { width: 12px; height: 12px; border-radius: 50%; margin-top: -7px; }
.checkpoint-mark:hover { background: #f1f3f4; }
.checkpoint-mark[aria-pressed="true"] { border-color: var(--accent); background: #e8f0fe; }
.mark-seq { color: var(--muted); }
.mark-node { max-width: 120px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.checkpoint-card { grid-area: checkpoint; display: flex; flex-direction: column; gap: 8px; }
.checkpoint-facts { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 2px 12px; margin: 0; font-size: 13px; }
.checkpoint-facts dt { color: var(--muted); }
.checkpoint-facts dd { margin: 0; overflow-wrap: anywhere; }
.checkpoint-value h3, .fork-form h3 { margin: 4px 0; }
.checkpoint-value pre, .compare-value pre { max-height: 200px; overflow: auto; margin: 0; padding: 6px 8px; background: #f8f9fa; border: 1px solid transparent; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
.fork-form { display: flex; flex-direction: column; gap: 8px; border-top: 1px solid var(--line); padding-top: 8px; }
.fork-form button.primary { align-self: flex-start; }
.fork-earlier { display: flex; flex-direction: column; gap: 8px; }
.fork-earlier summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.compare-area { margin: 16px 24px 24px; }
#compare-summary { margin: 0 0 8px; }
.compare-paths, .compare-sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 8px 24px; }
.compare-run h3 { margin: 4px 0; text-transform: none; letter-spacing: 0; font-size: 13px; color: var(--ink); overflow-wrap: anywhere; }
.compare-path { margin: 0; padding-left: 28px; font-size: 13px; }
.compare-path li { padding: 1px 0; }
.compare-path li.parted::marker { color: #e37400; font-weight: 600; }
.path-node.differs { font: inherit; padding: 0 6px; background: #fef7e0; border: 1px solid #e37400; border-radius: 4px; color: var(--ink); cursor: pointer; }
.path-node.differs[data-change="added"] { background: #e6f4ea; border-color: #1e8e3e; }
.path-node.differs[data-change="removed"] { background: #fce8e6; border-color: #d93025; }
.compare-node { margin-top: 16px; padding: 8px 12px; border: 1px solid var(--line); border-radius: 8px; }
.compare-node h3 { margin: 0 0 6px; text-transform: none; letter-spacing: 0; font-size: 14px; color: var(--ink); overflow-wrap: anywhere; }
.compare-side-run { margin: 0 0 4px; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.compare-value h4 { margin: 6px 0 2px; font-size: 12px; color: var(--muted); }
.compare-value.differs h4 { color: #b06000; }
.compare-value.differs pre { background: #fef7e0; border-color: #e37400; }
@media (max-width: 1000px) {
  .studio-run main { grid-template-rows: none; grid-template-areas: "graph" "side" "timeline" "checkpoint" "lanes"; }
}
@media (max-width: 1100px) {
  .studio { grid-template-columns: minmax(0, 1fr); }
  .studio-side { padding: 16px 16px 0; }
  #run-area:has(#waits:not([hidden])) { display: grid; grid-template-columns: minmax(0, 1fr) minmax(260px, 320px); align-items: start; }
  #run-area:has(#waits:not([hidden])) .run-head { grid-column: 1 / -1; }
  #run-area:has(#waits:not([hidden])) main { grid-column: 1; grid-row: 2; grid-template-columns: minmax(0, 1fr); }
  #run-area:has(#waits:not([hidden])) .waits { grid-column: 2; grid-row: 2; margin: 12px 16px 0 0; }
  #run-area:has(#waits:not([hidden])) .wait-form { flex-basis: 100%; }
}
${EVALS_STYLE}`;
