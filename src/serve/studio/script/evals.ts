/**
 * The evals page's list and its place in the studio: `#evals` lists the kept reports
 * (`GET /evals`), newest first — target, when, runs, each scorer's mean, coverage — each opening
 * the report at `#eval=<id>`; either address shows the evals page in place of the runs, and the
 * bar's links say which page is shown. `routeEvals` is what the studio's `route` asks first.
 */
export const EVALS_SCRIPT = `
  const evals = { generation: 0 };
  const evalHash = (id) => '#eval=' + encodeURIComponent(id);
  const evalPath = (id, tail) => '/evals/' + encodeURIComponent(id) + (tail || '');
  const evalsOfHash = () => {
    if (location.hash === '#evals') return { list: true };
    const match = /^#eval=(.+)$/.exec(location.hash);
    if (!match) return null;
    try { return { id: decodeURIComponent(match[1]) }; } catch (_) { return null; }
  };
  const fixed = (value, digits) => (typeof value === 'number' && isFinite(value) ? value.toFixed(digits) : '—');
  const costText = (usd) => (typeof usd === 'number' ? '$' + usd.toFixed(4) : '—');
  const msText = (ms) => (typeof ms !== 'number' ? '—' : ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : Math.round(ms) + ' ms');
  const percent = (ratio) => (typeof ratio === 'number' ? Math.round(ratio * 100) + '%' : '—');
  const tableRow = (cells) => {
    const tr = make('tr');
    tr.append(...cells);
    return tr;
  };
  const headRow = (names) => tableRow(names.map((name) => {
    const th = make('th', '', name);
    th.scope = 'col';
    return th;
  }));
  const numCell = (text) => make('td', 'num', text);
  const showPage = (page) => {
    $('evals-area').hidden = page !== 'evals';
    $('studio-runs').hidden = page === 'evals';
    for (const [id, on] of [['nav-runs', page === 'runs'], ['nav-evals', page === 'evals']]) {
      if (on) $(id).setAttribute('aria-current', 'page');
      else $(id).removeAttribute('aria-current');
    }
  };
  const evalItem = (head, names) => {
    const target = make('td');
    target.append(link(evalHash(head.id), head.target.kind + ' ' + head.target.name, 'eval-open'));
    const when = make('td');
    when.append(make('time', '', head.startedAt));
    const means = names.map((name) => numCell(fixed(head.means[name], 2)));
    const tr = tableRow([target, when, numCell(String(head.runs)), ...means, numCell(percent(head.coverage))]);
    tr.setAttribute('data-eval-id', head.id);
    return tr;
  };
  const renderEvals = (reports) => {
    const sorted = reports.slice().sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
    const names = [...new Set(sorted.flatMap((r) => Object.keys(r.means)))];
    $('evals-head').replaceChildren(...headRow(['Target', 'When', 'Runs', ...names.map((n) => n + ' (mean)'), 'Coverage']).children);
    $('evals-rows').replaceChildren(...sorted.map((head) => evalItem(head, names)));
    $('evals-table').hidden = sorted.length === 0;
    $('evals-empty').hidden = sorted.length > 0;
  };
  const loadEvals = async () => {
    const generation = ++evals.generation;
    try {
      const page = await api.get('/evals');
      if (generation !== evals.generation) return;
      renderEvals(Array.isArray(page.reports) ? page.reports : []);
      showError($('evals-error'), null);
    } catch (error) {
      if (generation === evals.generation) showError($('evals-error'), error);
    }
  };
  // The evals page when the address names it (true), else the runs (false).
  const routeEvals = () => {
    const where = evalsOfHash();
    showPage(where ? 'evals' : 'runs');
    if (!where) {
      evals.generation += 1;
      return false;
    }
    $('evals-list-card').hidden = !where.list;
    $('eval-report').hidden = where.list === true;
    if (where.list) loadEvals();
    else openEval(where.id);
    return true;
  };
`;
