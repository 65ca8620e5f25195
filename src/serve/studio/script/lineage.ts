/**
 * Where the open run comes from, under its head: a fork says "forked from <run> at <checkpoint>"
 * (a link to the source) and links to the compare view beside its source; a run kicked off on a
 * thread names the thread and links to the thread's other runs (`GET /threads/:thread/runs`); a run
 * forked from names its forks among the runs the list holds.
 */
export const LINEAGE_SCRIPT = `
  const compareHash = (a, b) => '#compare=' + encodeURIComponent(a) + '/' + encodeURIComponent(b);
  const link = (href, text, className) => {
    const a = make('a', className || '', text);
    a.href = href;
    return a;
  };
  const forkLine = (run) => {
    const from = run.forkedFrom;
    const line = make('p', 'lineage-line');
    line.id = 'run-forked-from';
    const source = link(runHash(from.runId), from.runId, 'lineage-source');
    const at = make('code', '', from.checkpoint);
    line.append(document.createTextNode('Forked from '), source, document.createTextNode(' at '), at, document.createTextNode(' · '), link(compareHash(from.runId, run.id), 'Compare with source', 'lineage-compare'));
    return line;
  };
  const threadLine = (run, runs) => {
    const line = make('p', 'lineage-line');
    line.id = 'run-thread';
    line.append(document.createTextNode('Thread '), make('code', '', run.thread));
    const others = runs.filter((r) => r.id !== run.id);
    if (others.length > 0) line.append(document.createTextNode(' · its other runs: '));
    others.forEach((r, i) => {
      if (i > 0) line.append(document.createTextNode(', '));
      line.append(link(runHash(r.id), r.id + ' (' + r.status + ')', 'lineage-thread-run'));
    });
    return line;
  };
  const threadRuns = async (thread) => {
    try {
      const page = await api.get('/threads/' + encodeURIComponent(thread) + '/runs');
      return Array.isArray(page.runs) ? page.runs : [];
    } catch (_) {
      return [];
    }
  };
  // The open run's forks among the runs listed (their summaries name their source): no request of its own.
  const renderForks = () => {
    const run = history.run;
    const forks = run ? list.runs.filter((r) => r.forkedFrom && r.forkedFrom.runId === run.id) : [];
    const line = make('p', 'lineage-line');
    line.id = 'run-forks';
    line.append(document.createTextNode(forks.length === 1 ? 'Its fork among the runs listed: ' : 'Its forks among the runs listed: '));
    forks.forEach((r, i) => {
      if (i > 0) line.append(document.createTextNode(', '));
      line.append(link(runHash(r.id), r.id, 'lineage-fork'), document.createTextNode(' at '), make('code', '', r.forkedFrom.checkpoint));
    });
    const box = $('run-forks-box');
    box.replaceChildren(...(forks.length === 0 ? [] : [line]));
    box.hidden = forks.length === 0;
  };
  const renderLineage = async (run) => {
    const box = $('run-lineage');
    const lines = [];
    if (run && run.forkedFrom) lines.push(forkLine(run));
    if (run && typeof run.thread === 'string') lines.push(threadLine(run, await threadRuns(run.thread)));
    if (run && history.run !== run) return;
    box.replaceChildren(...lines);
    box.hidden = lines.length === 0;
    renderForks();
  };
`;
