/**
 * The list of runs: newest first, with live status. It reloads every few seconds while the tab is
 * shown, at once after the studio starts, answers or aborts a run, and when an open run's stream
 * ends; the open run is marked, and a fork names its source. `badgeClass` gives a run status the colour of a node status.
 */
export const RUNS_SCRIPT = `
  const LIST_EVERY_MS = 2000;
  const BADGE = { running: 'running', paused: 'paused', completed: 'completed', partial: 'blocked', failed: 'failed', aborted: 'failed' };
  const badgeClass = (status) => 'badge status-' + (BADGE[status] || 'waiting');
  const runHash = (id) => '#run=' + encodeURIComponent(id);
  const runItem = (run) => {
    const button = make('button', 'run-item');
    button.type = 'button';
    button.setAttribute('data-run-id', run.id);
    if (run.id === pane.id) button.setAttribute('aria-current', 'true');
    const head = make('span', 'run-item-head');
    const badge = make('span', badgeClass(run.status), run.status);
    badge.setAttribute('data-status', run.status);
    head.append(badge, make('strong', '', run.definition));
    const when = new Date(run.createdAt);
    button.append(head, make('code', 'run-id', run.id), make('time', 'run-time', when.toISOString()));
    if (run.forkedFrom) button.append(make('span', 'run-fork', 'fork of ' + run.forkedFrom.runId + ' at ' + run.forkedFrom.checkpoint));
    button.addEventListener('click', () => { location.hash = runHash(run.id); });
    const item = make('li');
    item.append(button);
    return item;
  };
  const list = { timer: null, loading: false, runs: [] };
  const loadRuns = async () => {
    if (list.loading) return;
    list.loading = true;
    try {
      const status = $('runs-status').value;
      const page = await api.get('/runs?limit=100' + (status ? '&status=' + encodeURIComponent(status) : ''));
      const ul = $('run-list');
      ul.replaceChildren(...page.runs.map(runItem));
      list.runs = page.runs;
      renderForks();
      $('runs-empty').hidden = page.runs.length > 0;
      showError($('runs-error'), null);
    } catch (error) {
      showError($('runs-error'), error);
    } finally {
      list.loading = false;
    }
  };
  const pollRuns = () => {
    clearTimeout(list.timer);
    list.timer = setTimeout(async () => {
      if (document.visibilityState === 'visible') await loadRuns();
      pollRuns();
    }, LIST_EVERY_MS);
  };
  const bindRuns = () => {
    $('runs-status').addEventListener('change', loadRuns);
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') loadRuns(); });
  };
`;
