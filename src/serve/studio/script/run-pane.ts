/**
 * The open run: its page from `GET /runs/:id/view` parsed (never run: a parsed document's scripts do
 * not execute) and its header, legend, graph, timeline, lanes and data moved into the studio's own
 * run view, which then redraws (`statecrew:refresh`; `fresh` for the first page of another run, so it fits). Its
 * events stream in from `GET /runs/:id/events` after the last one seen: each schedules a redraw (at
 * most one in flight, one queued), and a dropped stream reconnects from where it stopped. A model's
 * text deltas (live only, with no event number) show under "Writing now" beside their node until the
 * node's next event. When the stream ends (the run settled or paused) the run's detail says what it
 * waits for.
 */
export const RUN_PANE_SCRIPT = `
  // A redraw waits at least this long after an event, and twice as long as the last page took, so a
  // big run's page (500 nodes: ~1 MB) never keeps the server busy.
  const REDRAW_AFTER_MS = 200;
  const RECONNECT_AFTER_MS = 2000;
  const pane = { id: null, generation: 0, lastSeq: 0, stream: null, timer: null, busy: false, again: false, fresh: false, detail: null, tookMs: 0 };
  const runPath = (id, tail) => '/runs/' + encodeURIComponent(id) + (tail || '');
  const moveChildren = (target, source) => {
    target.replaceChildren(...(source ? Array.from(source.childNodes, (n) => document.importNode(n, true)) : []));
  };
  const applyPage = (html, fresh) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    moveChildren($('run-header'), doc.querySelector('header'));
    const legend = doc.querySelector('.graph-card .legend');
    $('run-legend').replaceChildren(...(legend ? [document.importNode(legend, true)] : []));
    moveChildren($('graph-viewport'), doc.getElementById('graph-viewport'));
    moveChildren(document.querySelector('#run-area .timeline-card .scroll'), doc.querySelector('.timeline-card .scroll'));
    const lanes = doc.querySelector('.lanes-card');
    moveChildren($('run-lanes'), lanes);
    $('run-lanes').hidden = !lanes;
    const data = doc.getElementById('run-data');
    $('run-data').textContent = data ? data.textContent : '{}';
    document.dispatchEvent(new CustomEvent('statecrew:refresh', { detail: { fresh } }));
  };
  const redraw = async () => {
    if (pane.busy) { pane.again = true; return; }
    pane.busy = true;
    const generation = pane.generation;
    const began = performance.now();
    try {
      const html = await api.page(runPath(pane.id, '/view'));
      pane.tookMs = performance.now() - began;
      if (generation === pane.generation) {
        applyPage(html, pane.fresh);
        pane.fresh = false;
      }
      showError($('run-error'), null);
    } catch (error) {
      if (generation === pane.generation) showError($('run-error'), error);
    } finally {
      pane.busy = false;
      if (pane.again) {
        pane.again = false;
        scheduleRedraw();
      }
    }
  };
  const scheduleRedraw = () => {
    if (pane.timer !== null) return;
    pane.timer = setTimeout(() => {
      pane.timer = null;
      redraw();
      loadHistory();
    }, Math.max(REDRAW_AFTER_MS, 2 * pane.tookMs));
  };
  const setLive = (text) => { $('run-live').textContent = text; };
  const writingOf = (nodeId) =>
    Array.from($('writing-nodes').children).find((item) => item.getAttribute('data-node-id') === nodeId);
  const clearWriting = (nodeId) => {
    for (const item of Array.from($('writing-nodes').children))
      if (nodeId === undefined || item.getAttribute('data-node-id') === nodeId) item.remove();
    $('writing').hidden = $('writing-nodes').children.length === 0;
  };
  const onDelta = (event) => {
    let item = writingOf(event.nodeId);
    if (item && item.getAttribute('data-attempt') !== String(event.attempt)) { item.remove(); item = undefined; }
    if (!item) {
      item = document.createElement('div');
      item.className = 'writing-node';
      item.setAttribute('data-node-id', event.nodeId);
      item.setAttribute('data-attempt', String(event.attempt));
      const title = document.createElement('h3');
      title.textContent = event.nodeId;
      const text = document.createElement('pre');
      text.className = 'writing-text';
      item.append(title, text);
      $('writing-nodes').append(item);
    }
    const text = item.querySelector('.writing-text');
    text.textContent += event.delta;
    text.scrollTop = text.scrollHeight;
    $('writing').hidden = false;
  };
  const onMessage = (message) => {
    let event = null;
    try { event = JSON.parse(message.data); } catch (_) { event = null; }
    const type = event && typeof event.type === 'string' ? event.type : '';
    if (type === 'model.delta' && message.id === null) {
      onDelta(event);
      return;
    }
    const seq = Number(message.id);
    if (seq > pane.lastSeq) pane.lastSeq = seq;
    // A node's text is written until its next kept event (its model call, its end); the run's end ends all.
    if (event && typeof event.nodeId === 'string' && writingOf(event.nodeId)) clearWriting(event.nodeId);
    if (type === 'run.completed' || type === 'run.failed') clearWriting();
    setLive('live · event ' + seq + (type ? ' · ' + type : ''));
    scheduleRedraw();
  };
  const follow = async () => {
    if (pane.stream) pane.stream.abort();
    const controller = new AbortController();
    const generation = pane.generation;
    pane.stream = controller;
    // Deltas missed while no stream was open never come again: what was written so far is in the events.
    clearWriting();
    setLive('connecting…');
    try {
      await followStream(runPath(pane.id, '/events?after=' + pane.lastSeq), controller.signal, onMessage);
      if (controller.signal.aborted || generation !== pane.generation) return;
      await Promise.all([redraw(), loadDetail(), loadRuns(), loadHistory()]);
    } catch (error) {
      if (controller.signal.aborted || generation !== pane.generation) return;
      setLive('stream lost · reconnecting');
      if (error.status === undefined || error.status >= 500) setTimeout(() => { if (generation === pane.generation) follow(); }, RECONNECT_AFTER_MS);
      else showError($('run-error'), error);
    }
  };
  const loadDetail = async () => {
    const id = pane.id;
    try {
      const detail = await api.get(runPath(id));
      if (id !== pane.id) return;
      pane.detail = detail;
      const served = renderServed(detail);
      renderActions(detail, served);
      renderWaits(detail, served);
      if (detail.status !== 'running') setLive(detail.status === 'paused' ? 'paused · waiting for an answer' : 'ended · ' + detail.status);
    } catch (error) {
      if (id === pane.id) showError($('run-error'), error);
    }
  };
  const resetPanel = () => {
    $('panel').replaceChildren($('panel-hint').content.cloneNode(true));
  };
  const openRun = async (id) => {
    if (pane.stream) pane.stream.abort();
    clearTimeout(pane.timer);
    Object.assign(pane, { id, generation: pane.generation + 1, lastSeq: 0, stream: null, timer: null, fresh: true, detail: null });
    for (const item of document.querySelectorAll('[data-run-id]')) {
      if (item.getAttribute('data-run-id') === id) item.setAttribute('aria-current', 'true');
      else item.removeAttribute('aria-current');
    }
    $('run-empty').hidden = id !== null;
    $('run-area').hidden = id === null;
    resetHistory();
    if (id === null) return;
    resetPanel();
    $('waits').hidden = true;
    $('run-note').hidden = true;
    showError($('run-error'), null);
    await Promise.all([redraw(), loadDetail(), loadHistory()]);
    follow();
  };
  const runOfHash = () => {
    const match = /^#run=(.+)$/.exec(location.hash);
    if (!match) return null;
    try { return decodeURIComponent(match[1]); } catch (_) { return null; }
  };
  const renderActions = (detail, served) => {
    $('run-abort').hidden = detail.status !== 'running';
    $('run-resume').hidden = !served || !(detail.status === 'aborted' || (detail.status === 'running' && detail.owner === null));
  };
  const act = async (path, body, output) => {
    const where = output || $('run-error');
    try {
      await api.post(runPath(pane.id, path), body);
      showError(where, null);
    } catch (error) {
      showError(where, error);
      return false;
    }
    await Promise.all([loadDetail(), loadRuns()]);
    follow();
    return true;
  };
  const bindRunPane = () => {
    $('run-abort').addEventListener('click', () => act('/abort'));
    $('run-resume').addEventListener('click', () => act('/resume', {}));
    window.addEventListener('hashchange', route);
  };
`;
