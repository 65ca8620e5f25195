import { cspHash } from '../../view/csp-hash.js';
import { graphCardShell, PANEL_HINT, SIDE_HTML, timelineCardShell } from '../../view/html.js';
import { PAGE_SCRIPT } from '../../view/page-script.js';
import { PAGE_STYLE } from '../../view/page-style.js';
import { EVALS_AREA, STUDIO_NAV } from './evals-page.js';
import { STUDIO_SCRIPT } from './script.js';
import { STUDIO_STYLE } from './style.js';

/**
 * The studio's policy: only the run view's and its own style sheets and scripts (allowed by hash),
 * requests to this server alone, no frames, no forms sent anywhere. (The run view's style sheet also
 * sits in each run page the studio parses: allowing it keeps the parse quiet.)
 */
const PAGE_POLICY = [
  "default-src 'none'",
  `script-src ${cspHash(PAGE_SCRIPT)} ${cspHash(STUDIO_SCRIPT)}`,
  `style-src ${cspHash(PAGE_STYLE)} ${cspHash(STUDIO_STYLE)}`,
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The policy the studio is served with: the page's, and no page may frame it (a header-only rule). */
export const STUDIO_POLICY = `${PAGE_POLICY}; frame-ancestors 'none'`;

const STATUS_OPTIONS = ['', 'running', 'paused', 'completed', 'partial', 'failed', 'aborted']
  .map((status) => `<option value="${status}">${status === '' ? 'all' : status}</option>`)
  .join('');

/** The token form: shown when the server answers 401. */
const TOKEN_CARD = [
  '<section id="token-card" class="card side-card" hidden aria-labelledby="token-title">',
  '<h2 id="token-title">This server needs its token</h2>',
  '<form id="token-form"><label class="field"><span class="field-name">Bearer token (kept in this tab only)</span>',
  '<input id="token-input" type="password" autocomplete="off" required></label>',
  '<output id="token-error" class="form-error" role="alert" hidden></output>',
  '<button type="submit" class="primary">Use it</button></form></section>',
].join('');

/** The left column: starting a run, and the runs. */
const SIDE_COLUMN = [
  '<nav class="studio-side" aria-label="Runs">',
  '<section class="card side-card" aria-labelledby="start-title"><h2 id="start-title">Start a run</h2>',
  '<form id="start-form"><label class="field"><span class="field-name">Crew or flow</span><select id="start-definition"></select></label>',
  '<div id="start-inputs"></div>',
  '<output id="start-error" class="form-error" role="alert" hidden></output>',
  '<button id="start-button" type="submit" class="primary">Start</button></form></section>',
  '<section class="card side-card" aria-labelledby="runs-title"><h2 id="runs-title">Runs',
  `<select id="runs-status" aria-label="Show runs with this status">${STATUS_OPTIONS}</select></h2>`,
  '<output id="runs-error" class="form-error" role="alert" hidden></output>',
  '<p id="runs-empty" class="hint" hidden>No runs yet: start one.</p>',
  '<ul id="run-list"></ul></section>',
  '</nav>',
].join('');

/** The open run's checkpoints, on its timeline: a mark per checkpoint, in commit order. */
const CHECKPOINT_TRACK = [
  '<div id="checkpoint-track" class="checkpoint-track" hidden>',
  '<h3 id="checkpoints-title">Checkpoints <output id="checkpoint-count"></output></h3>',
  '<ol id="checkpoint-list" aria-labelledby="checkpoints-title"></ol>',
  '<p id="checkpoint-empty" class="hint" hidden>No checkpoint committed yet.</p></div>',
  '<output id="checkpoint-error" class="form-error" role="alert" hidden></output>',
].join('');

/** The chosen checkpoint: what it kept, and the editor that forks from it. */
const CHECKPOINT_CARD = [
  '<section id="checkpoint-card" class="card checkpoint-card" aria-labelledby="checkpoint-title" hidden>',
  '<h2 id="checkpoint-title"></h2><div id="checkpoint-detail"></div><div id="fork-area"></div></section>',
].join('');

/** Two runs side by side: shown in place of the run when the address names a comparison. */
const COMPARE_AREA = [
  '<section id="compare-area" class="card compare-area" aria-labelledby="compare-title" hidden>',
  '<h2 id="compare-title">Two runs side by side</h2><p id="compare-summary" aria-live="polite"></p>',
  '<output id="compare-error" class="form-error" role="alert" hidden></output>',
  '<div id="compare-body"></div></section>',
].join('');

/** The open run: its head and actions, what it waits for, the text being written, and the run view's cards. */
const RUN_COLUMN = [
  '<div class="studio-run">',
  '<p id="run-empty" class="hint">Choose a run, or start one.</p>',
  '<div id="run-area" hidden>',
  '<section class="card run-head" aria-label="Run"><div id="run-header" class="run-header"></div>',
  '<div id="run-lineage" class="run-lineage" hidden></div>',
  '<div id="run-forks-box" class="run-lineage" hidden></div>',
  '<div class="run-actions"><output id="run-live" aria-live="polite"></output>',
  '<button id="run-resume" type="button" class="secondary" hidden>Resume</button>',
  '<button id="run-abort" type="button" class="secondary" hidden>Abort</button></div>',
  '<output id="run-error" class="form-error" role="alert" hidden></output>',
  '<p id="run-note" class="run-note" role="note" hidden></p></section>',
  '<section id="waits" class="card waits" aria-labelledby="waits-title" hidden>',
  '<h2 id="waits-title">Waiting for you</h2><div id="wait-forms"></div></section>',
  // The text of each node whose model is writing now, as it streams (live only: gone once it ends).
  '<section id="writing" class="card writing" aria-labelledby="writing-title" aria-live="polite" hidden>',
  '<h2 id="writing-title">Writing now</h2><div id="writing-nodes"></div></section>',
  '<main>',
  graphCardShell('<div id="run-legend"></div>', ''),
  SIDE_HTML,
  timelineCardShell('', CHECKPOINT_TRACK),
  CHECKPOINT_CARD,
  '<section id="run-lanes" class="card lanes-card" hidden></section>',
  '</main></div>',
  COMPARE_AREA,
  '</div>',
].join('');

/**
 * The studio: one self-contained page (no network but this server's routes, inline style and two
 * inline scripts allowed by hash) that lists runs live, opens one as the run view's graph, timeline
 * and details following its events, answers what a paused run waits for, and starts runs; draws
 * the open run's checkpoints on its timeline and forks from one; shows two runs side by side; and
 * shows evaluation reports on its evals page.
 */
export const STUDIO_PAGE = [
  '<!doctype html>',
  '<html lang="en">',
  '<head>',
  '<meta charset="utf-8">',
  `<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">`,
  '<meta name="viewport" content="width=device-width, initial-scale=1">',
  '<meta name="referrer" content="no-referrer">',
  '<title>statecrew studio</title>',
  `<style>${PAGE_STYLE}</style>`,
  `<style>${STUDIO_STYLE}</style>`,
  '</head>',
  '<body>',
  `<header class="studio-bar"><h1>statecrew <span class="muted">studio</span></h1>${STUDIO_NAV}</header>`,
  TOKEN_CARD,
  `<div id="studio-runs" class="studio">${SIDE_COLUMN}${RUN_COLUMN}</div>`,
  EVALS_AREA,
  // What the details panel shows again when another run opens.
  `<template id="panel-hint">${PANEL_HINT}</template>`,
  '<script type="application/json" id="run-data">{}</script>',
  `<script>${PAGE_SCRIPT}</script>`,
  `<script>${STUDIO_SCRIPT}</script>`,
  '</body>',
  '</html>',
  '',
].join('\n');
