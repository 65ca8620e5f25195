/**
 * The open run's checkpoints (`GET /runs/:id/history`, every page): a mark per checkpoint on the
 * timeline, in commit order, each a button with its seq and node id (arrow keys move between them);
 * choosing one shows its output, its state (flows) and its error in the checkpoint card, with the
 * fork editor below. A reload keeps the chosen checkpoint, and keeps its editor as typed.
 */
export const CHECKPOINTS_SCRIPT = `
  const HISTORY_PAGE = 500;
  const history = { id: null, run: null, chosen: null, loading: false, again: false };
  const asEditable = (value) => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value, null, 2));
  const readHistory = async (id) => {
    let after = 0;
    let run = null;
    for (;;) {
      const page = await api.get(runPath(id, '/history?limit=' + HISTORY_PAGE + (after > 0 ? '&after=' + after : '')));
      run = run ? Object.assign(run, { checkpoints: run.checkpoints.concat(page.checkpoints) }) : page;
      if (page.next === undefined || page.next === null || page.checkpoints.length === 0) break;
      after = page.next;
    }
    delete run.next;
    return run;
  };
  const markOf = (checkpoint) => {
    const button = make('button', 'checkpoint-mark');
    button.type = 'button';
    button.setAttribute('data-checkpoint', checkpoint.checkpoint);
    button.setAttribute('data-seq', String(checkpoint.seq));
    button.setAttribute('data-status', checkpoint.status);
    button.setAttribute('aria-pressed', String(history.chosen === checkpoint.seq));
    button.title = '#' + checkpoint.seq + ' ' + checkpoint.nodeId + ' · ' + checkpoint.status + ' · ' + new Date(checkpoint.at).toISOString();
    button.append(make('span', 'swatch status-' + checkpoint.status), make('span', 'mark-seq', '#' + checkpoint.seq), make('span', 'mark-node', checkpoint.nodeId));
    button.addEventListener('click', () => chooseCheckpoint(checkpoint.seq));
    const item = make('li');
    item.append(button);
    return item;
  };
  const renderMarks = () => {
    const run = history.run;
    const marks = run ? run.checkpoints : [];
    $('checkpoint-list').replaceChildren(...marks.map(markOf));
    $('checkpoint-count').textContent = run ? marks.length + (marks.length === 1 ? ' checkpoint' : ' checkpoints') : '';
    $('checkpoint-track').hidden = !run;
    $('checkpoint-empty').hidden = !run || marks.length > 0;
  };
  const checkpointBlock = (title, value, className) => {
    const section = make('section', 'checkpoint-value');
    section.append(make('h3', '', title), make('pre', className || '', asEditable(value)));
    return section;
  };
  const checkpointFacts = (checkpoint) => {
    const dl = make('dl', 'checkpoint-facts');
    const rows = [['Seq', '#' + checkpoint.seq], ['Node', checkpoint.nodeId], ['Name', checkpoint.name], ['Kind', checkpoint.kind], ['Status', checkpoint.status], ['Committed', new Date(checkpoint.at).toISOString()], ['Error code', checkpoint.code]];
    for (const [name, value] of rows) if (value !== undefined) dl.append(make('dt', '', name), make('dd', '', value));
    return dl;
  };
  const renderChosen = () => {
    const run = history.run;
    const checkpoint = run && run.checkpoints.find((c) => c.seq === history.chosen);
    $('checkpoint-card').hidden = !checkpoint;
    if (!checkpoint) return;
    $('checkpoint-title').textContent = 'Checkpoint #' + checkpoint.seq + ' · ' + checkpoint.nodeId;
    const parts = [checkpointFacts(checkpoint), checkpointBlock('Output', checkpoint.output, 'checkpoint-output')];
    if (checkpoint.structured !== undefined) parts.push(checkpointBlock('Structured output', checkpoint.structured, 'checkpoint-structured'));
    if (run.kind === 'flow') parts.push(checkpointBlock('State after it', checkpoint.state, 'checkpoint-state'));
    if (checkpoint.error !== undefined) parts.push(checkpointBlock('Error', checkpoint.error, 'checkpoint-error'));
    $('checkpoint-detail').replaceChildren(...parts);
    $('fork-area').replaceChildren(forkEditor(run, checkpoint));
  };
  const chooseCheckpoint = (seq) => {
    history.chosen = seq;
    for (const mark of $('checkpoint-list').querySelectorAll('.checkpoint-mark'))
      mark.setAttribute('aria-pressed', String(mark.getAttribute('data-seq') === String(seq)));
    renderChosen();
  };
  const loadHistory = async () => {
    if (history.loading) { history.again = true; return; }
    history.loading = true;
    const id = pane.id;
    try {
      const run = await readHistory(id);
      if (id !== pane.id) return;
      // Another run, or the chosen checkpoint gone: nothing chosen. Else its editor stays as typed.
      const kept = history.id === id && run.checkpoints.some((c) => c.seq === history.chosen);
      Object.assign(history, { id, run, chosen: kept ? history.chosen : null });
      renderMarks();
      renderLineage(run);
      if (!kept) renderChosen();
      showError($('checkpoint-error'), null);
    } catch (error) {
      if (id === pane.id) showError($('checkpoint-error'), error);
    } finally {
      history.loading = false;
      if (history.again) { history.again = false; loadHistory(); }
    }
  };
  const resetHistory = () => {
    Object.assign(history, { id: null, run: null, chosen: null });
    renderMarks();
    renderChosen();
    renderLineage(null);
    showError($('checkpoint-error'), null);
  };
  // Left and right (Home, End) move between the marks, as in a toolbar.
  const onMarkKey = (event) => {
    const marks = Array.from($('checkpoint-list').querySelectorAll('.checkpoint-mark'));
    const at = marks.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: marks.length - 1 }[event.key];
    if (to === undefined || to < 0 || to >= marks.length) return;
    event.preventDefault();
    marks[to].focus();
  };
  const bindCheckpoints = () => {
    $('checkpoint-list').addEventListener('keydown', onMarkKey);
  };
`;
