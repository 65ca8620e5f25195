/**
 * The studio's evals page (`#evals`, a report at `#eval=<id>`): shown in place of the runs and the
 * open run. The list of kept reports, newest first; a report's summary, its cases (each opening its
 * run in the run view) and its coverage — the definition's picture with the edges no case took
 * highlighted, and the lists of what no case took.
 */
export const EVALS_AREA = [
  '<div id="evals-area" class="evals" hidden>',
  '<section id="evals-list-card" class="card" aria-labelledby="evals-title">',
  '<h2 id="evals-title">Evaluation reports</h2>',
  '<output id="evals-error" class="form-error" role="alert" hidden></output>',
  '<p id="evals-empty" class="hint" hidden>No report kept yet: run <code>evaluate</code> with this server\'s store.</p>',
  '<div class="table-scroll"><table id="evals-table" class="eval-table" hidden><thead><tr id="evals-head"></tr></thead><tbody id="evals-rows"></tbody></table></div>',
  '</section>',
  '<section id="eval-report" class="card" aria-labelledby="eval-title" hidden>',
  '<p class="eval-back"><a href="#evals">← All reports</a></p>',
  '<h2 id="eval-title"></h2><p id="eval-meta" class="meta"></p>',
  '<output id="eval-error" class="form-error" role="alert" hidden></output>',
  '<div id="eval-body" hidden>',
  '<h3 id="eval-summary-title">Summary</h3><dl id="eval-totals" class="eval-totals"></dl>',
  '<div class="table-scroll"><table id="eval-scorers" class="eval-table" aria-labelledby="eval-summary-title"></table></div>',
  '<h3 id="eval-cases-title">Cases</h3>',
  '<div class="table-scroll"><table id="eval-cases" class="eval-table" aria-labelledby="eval-cases-title"></table></div>',
  '<h3 id="eval-coverage-title">Coverage</h3><p id="eval-coverage-ratio"></p>',
  '<div id="eval-coverage-picture" class="eval-picture" role="figure" aria-label="The definition, edges no case took dashed red"></div>',
  '<output id="eval-coverage-error" class="form-error" role="alert" hidden></output>',
  '<div id="eval-uncovered" class="eval-uncovered"></div>',
  '</div></section></div>',
].join('');

/** The bar's links: the runs, and the evals page. */
export const STUDIO_NAV = [
  '<nav class="studio-nav" aria-label="Pages">',
  '<a id="nav-runs" href="#">Runs</a>',
  '<a id="nav-evals" href="#evals">Evals</a>',
  '</nav>',
].join('');

/** The evals page's style. */
export const EVALS_STYLE = `
.studio-nav { display: flex; gap: 16px; }
.studio-nav a { color: var(--ink); text-decoration: none; padding: 2px 8px; border-radius: 6px; }
.studio-nav a[aria-current="page"] { background: #e8f0fe; color: var(--accent); font-weight: 600; }
.evals { padding: 16px 24px; display: flex; flex-direction: column; gap: 16px; }
.table-scroll { overflow-x: auto; }
.eval-table { border-collapse: collapse; font-size: 13px; min-width: 100%; }
.eval-table th, .eval-table td { text-align: left; padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
.eval-table th { font-size: 12px; color: var(--muted); font-weight: 600; }
.eval-table td.num { text-align: right; font-variant-numeric: tabular-nums; }
.eval-table tr.node-row td { color: var(--muted); }
.eval-table tr.node-row td:first-child { padding-left: 24px; }
.score { cursor: help; border-bottom: 1px dotted var(--muted); }
.score.low { color: #c5221f; }
.score.error { color: #c5221f; font-style: italic; }
.eval-back { margin: 0 0 4px; }
.eval-totals { display: flex; flex-wrap: wrap; gap: 4px 24px; margin: 0 0 8px; }
.eval-totals div { display: flex; flex-direction: column; }
.eval-totals dt { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.eval-totals dd { margin: 0; }
.eval-picture { overflow: auto; max-height: 70vh; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.eval-picture svg { display: block; max-width: none; }
.eval-uncovered { display: flex; flex-wrap: wrap; gap: 8px 32px; }
.eval-uncovered section { min-width: 200px; }
.eval-uncovered ul { margin: 0; padding-left: 18px; }
.eval-uncovered li { color: #c5221f; overflow-wrap: anywhere; }
`;
