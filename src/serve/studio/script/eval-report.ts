/**
 * One evaluation report (`#eval=<id>`, from `GET /evals/:id`): its summary (each scorer's mean, per
 * task or step when it has them; statuses, usage, cost, p50/p95 time), its cases (id, iteration,
 * status, each scorer's score with its reason on hover and focus, time, cost, a link opening the
 * case's run), and its coverage: the picture from `GET /evals/:id/coverage.svg` (parsed, never run)
 * and the lists of what no case took.
 */
export const EVAL_REPORT_SCRIPT = `
  const totalItem = (name, value) => {
    const box = make('div');
    box.append(make('dt', '', name), make('dd', '', value));
    return box;
  };
  const statusText = (statuses) =>
    Object.keys(statuses).filter((s) => statuses[s] > 0).map((s) => s + ' ' + statuses[s]).join(', ') || '—';
  const renderTotals = (summary) => {
    const usage = summary.usage || {};
    const judge = usage.judge || {};
    $('eval-totals').replaceChildren(
      totalItem('Cases', String(summary.cases)),
      totalItem('Runs', String(summary.runs)),
      totalItem('Statuses', statusText(summary.statuses || {})),
      totalItem('Cost', costText(summary.costUsd)),
      totalItem('Time p50', msText(summary.timeMs.p50)),
      totalItem('Time p95', msText(summary.timeMs.p95)),
      totalItem('Tokens', String(usage.totalTokens || 0) + ' (' + (usage.calls || 0) + ' calls)'),
      totalItem('Judge tokens', String(judge.totalTokens || 0) + ' (' + (judge.calls || 0) + ' calls)'),
    );
  };
  const renderScorers = (report) => {
    const rows = [headRow(['Scorer', 'Level', 'Mean', 'Min', 'Max', 'Scores', 'Errors'])];
    for (const { name, level } of report.scorers) {
      const s = report.summary.scorers[name];
      if (!s) continue;
      const tr = tableRow([make('td', '', name), make('td', '', level), numCell(fixed(s.mean, 2)), numCell(fixed(s.min, 2)), numCell(fixed(s.max, 2)), numCell(String(s.count)), numCell(String(s.errors))]);
      tr.setAttribute('data-scorer', name);
      rows.push(tr);
      for (const [node, figures] of Object.entries(s.nodes || {})) {
        const nodeRow = tableRow([make('td', '', node), make('td', '', 'node'), numCell(fixed(figures.mean, 2)), make('td'), make('td'), numCell(String(figures.count)), make('td')]);
        nodeRow.className = 'node-row';
        nodeRow.setAttribute('data-node', node);
        rows.push(nodeRow);
      }
    }
    $('eval-scorers').replaceChildren(...rows);
  };
  // What a score says on hover and focus: its reason or error, and each node's.
  const scoreReason = (score) => {
    const own = score.error ? score.error.code + ': ' + score.error.message : score.reason || '';
    const nodes = Object.entries(score.nodes || {}).map(([node, s]) => node + ' ' + fixed(s.score, 2) + (s.reason ? ': ' + s.reason : ''));
    return [own, ...nodes].filter(Boolean).join('\\n');
  };
  const scoreCell = (score) => {
    const td = make('td', 'num');
    if (!score) { td.textContent = '—'; return td; }
    const span = make('span', 'score' + (score.error ? ' error' : score.score < 0.5 ? ' low' : ''), fixed(score.score, 2));
    const reason = scoreReason(score);
    if (reason) {
      span.title = reason;
      span.tabIndex = 0;
      span.setAttribute('aria-label', fixed(score.score, 2) + ' — ' + reason);
    }
    td.append(span);
    return td;
  };
  const caseRow = (report, result) => {
    const status = make('td');
    const badge = make('span', badgeClass(result.status === 'error' ? 'failed' : result.status), result.status);
    badge.setAttribute('data-status', result.status);
    if (result.error) badge.title = result.error.code + ': ' + result.error.message;
    status.append(badge);
    const run = make('td');
    run.append(link(runHash(result.runId), result.runId, 'eval-run'));
    const tr = tableRow([make('td', '', result.caseId), numCell(String(result.iteration)), status, ...report.scorers.map(({ name }) => scoreCell(result.scores[name])), numCell(msText(result.timeMs)), numCell(costText(result.costUsd)), run]);
    tr.setAttribute('data-case', result.caseId);
    tr.setAttribute('data-iteration', String(result.iteration));
    return tr;
  };
  const renderCases = (report) => {
    const head = headRow(['Case', 'Iteration', 'Status', ...report.scorers.map((s) => s.name), 'Time', 'Cost', 'Run']);
    $('eval-cases').replaceChildren(head, ...report.cases.map((result) => caseRow(report, result)));
  };
  const UNCOVERED = [['paths', 'Paths no case took'], ['routes', 'Routes no case took'], ['failureHandlers', 'Failure handlers that never ran'], ['timeouts', 'Timeouts never reached'], ['nodes', 'Steps or tasks no case completed']];
  const renderUncovered = (coverage) => {
    const sections = UNCOVERED.map(([key, title]) => {
      const missed = (coverage[key] && coverage[key].uncovered) || [];
      const section = make('section');
      section.setAttribute('data-uncovered', key);
      const list = make('ul');
      list.append(...missed.map((name) => make('li', '', name)));
      section.append(make('h4', '', title + ' (' + missed.length + ')'), missed.length > 0 ? list : make('p', 'hint', 'None: every one was taken.'));
      return section;
    });
    $('eval-uncovered').replaceChildren(...sections);
    const c = coverage;
    const part = (name, x) => name + ' ' + x.covered.length + '/' + (x.covered.length + x.uncovered.length);
    $('eval-coverage-ratio').textContent = [part('paths', c.paths), part('routes', c.routes), part('failure handlers', c.failureHandlers), part('timeouts', c.timeouts), part(c.kind === 'crew' ? 'tasks' : 'steps', c.nodes)].join(' · ') + (c.truncated ? ' · paths truncated' : '');
  };
  const loadCoverage = async (id, generation) => {
    $('eval-coverage-picture').replaceChildren(make('p', 'hint', 'Drawing…'));
    showError($('eval-coverage-error'), null);
    try {
      const text = await api.page(evalPath(id, '/coverage.svg'));
      if (generation !== evals.generation) return;
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const svg = doc.documentElement;
      if (svg.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) throw new Error('The coverage picture could not be read');
      $('eval-coverage-picture').replaceChildren(document.importNode(svg, true));
    } catch (error) {
      if (generation !== evals.generation) return;
      $('eval-coverage-picture').replaceChildren();
      showError($('eval-coverage-error'), error);
    }
  };
  const renderEval = (report) => {
    $('eval-title').textContent = report.target.kind + ' ' + report.target.name;
    $('eval-meta').textContent = 'Started ' + report.startedAt + ' · ' + report.iterations + (report.iterations === 1 ? ' iteration' : ' iterations') + ' · report ' + report.id;
    renderTotals(report.summary);
    renderScorers(report);
    renderCases(report);
    renderUncovered(report.coverage);
    $('eval-body').hidden = false;
  };
  const openEval = async (id) => {
    const generation = ++evals.generation;
    $('eval-title').textContent = 'Report ' + id;
    $('eval-meta').textContent = 'Loading…';
    $('eval-body').hidden = true;
    showError($('eval-error'), null);
    try {
      const { report } = await api.get(evalPath(id));
      if (generation !== evals.generation) return;
      renderEval(report);
      await loadCoverage(id, generation);
    } catch (error) {
      if (generation !== evals.generation) return;
      $('eval-meta').textContent = '';
      showError($('eval-error'), error);
    }
  };
`;
