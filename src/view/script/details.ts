/**
 * The details panel's part of the page script: `render(node, run)` fills the panel with a node's (or
 * one run's) facts, prompt, context, messages and output, and `select(id, runId, message)` marks a
 * node chosen and shows it. Every element is built with `createElement`, every text set with
 * `textContent`.
 */
export const DETAILS_SCRIPT = `
  const asText = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const ms = (v) => {
    if (v < 1000) return Math.round(v) + ' ms';
    if (v < 60000) return (v / 1000).toFixed(2) + ' s';
    if (v < 3600000) return (v / 60000).toFixed(1) + ' min';
    if (v < 86400000) return (v / 3600000).toFixed(1) + ' h';
    return (v / 86400000).toFixed(1) + ' d';
  };
  const iso = (v) => (v === undefined ? undefined : new Date(v).toISOString());
  const usd = (v) => '$' + (v >= 1 ? v.toFixed(2) : v.toFixed(6));
  const facts = (rows) => {
    const dl = el('dl', 'facts');
    for (const [name, value] of rows) {
      if (value === undefined || value === null || value === '') continue;
      dl.append(el('dt', '', name), el('dd', '', value));
    }
    return dl;
  };
  const block = (title, text, className) => {
    if (text === undefined || text === null || text === '') return null;
    const section = el('section');
    section.append(el('h3', '', title), el('pre', className || '', text));
    return section;
  };
  const add = (...children) => {
    const panel = byId('panel');
    for (const child of children) if (child && panel) panel.append(child);
  };
  const runFacts = (node, run) => {
    const u = run.usage;
    return facts([
      ['Kind', node.kind],
      ['Agent', run.agent],
      ['Status', run.status],
      ['Attempts', run.attempts],
      ['Retries', run.retries],
      ['Started', run.startedAt === undefined ? undefined : new Date(run.startedAt).toISOString()],
      ['Duration', run.durationMs === undefined ? undefined : ms(run.durationMs)],
      ['Tokens', u ? u.inputTokens + ' in, ' + u.outputTokens + ' out (' + u.totalTokens + ')' : undefined],
      ['Model calls', u ? u.calls : undefined],
      ['Cost', run.costUsd === undefined ? undefined : usd(run.costUsd)],
      ['Error code', run.code],
      ['Failure', run.handled ? 'handled: the flow went on' : undefined],
    ]);
  };
  const deadlineRows = (wait) => [
    ['Times out after', wait.deadlineMs === undefined ? undefined : ms(wait.deadlineMs)],
    ['Times out at', iso(wait.timeoutAt)],
    ['On timeout', wait.onTimeout],
    ['Timed out', wait.timedOut ? 'yes' : undefined],
  ];
  const waitPart = (wait) => {
    if (!wait) return null;
    return facts([
      ['Waits for event', wait.event],
      ...deadlineRows(wait),
      ['Waiting since', iso(wait.waitingSince)],
      ['Waited', wait.waitedMs === undefined ? undefined : ms(wait.waitedMs)],
    ]);
  };
  const sleepPart = (sleep) => {
    if (!sleep) return null;
    return facts([
      ['Sleeps', sleep.ms === undefined ? 'until a time the run computes' : ms(sleep.ms)],
      ['Wakes at', iso(sleep.wakeAt)],
    ]);
  };
  const humanPart = (human) => {
    if (!human) return [];
    return [
      block('Human prompt', human.prompt),
      facts([
        ['Routes', (human.routes || []).join(', ')],
        ['Answer', human.route],
        ['Waited', human.waitedMs === undefined ? undefined : ms(human.waitedMs)],
        ['Waiting since', iso(human.waitingSince)],
        ...deadlineRows(human),
      ]),
      human.feedback === undefined ? null : block('Feedback', asText(human.feedback)),
    ];
  };
  const runButtons = (node, shown) => {
    if (!node.runs || node.runs.length < 2) return null;
    const nav = el('div', 'runs');
    node.runs.forEach((run, i) => {
      const button = el('button', '', '#' + (run.iteration || i + 1) + ' ' + run.status);
      button.type = 'button';
      button.setAttribute('aria-pressed', String(i === shown));
      button.addEventListener('click', () => render(node, i));
      nav.append(button);
    });
    return nav;
  };
  const notes = (list) => {
    if (!list || list.length === 0) return null;
    const ul = el('ul', 'notes');
    for (const note of list) ul.append(el('li', '', note));
    const section = el('section');
    section.append(el('h3', '', 'Notes'), ul);
    return section;
  };
  const stateOf = (m) => {
    if (m.code !== undefined) return 'refused';
    if (m.error !== undefined) return 'failed';
    return m.reply !== undefined || m.durationMs !== undefined ? 'replied' : 'waiting';
  };
  const outcome = (m, state) => {
    if (state === 'refused') return 'refused (' + m.code + ')';
    if (state === 'waiting') return 'waiting for a reply';
    return state + (m.durationMs === undefined ? '' : ' after ' + ms(m.durationMs));
  };
  const messagePart = (m, i) => {
    const state = stateOf(m);
    const item = el('article', 'message msg-' + state);
    item.setAttribute('data-message-index', String(i));
    item.setAttribute('data-from', m.from);
    item.setAttribute('data-to', m.to);
    const head = el('p', 'message-head');
    head.append(el('strong', 'message-from', m.from), el('span', '', ' → '), el('strong', 'message-to', m.to));
    const verb = m.kind === 'ask' ? 'asked a question' : 'delegated work';
    item.append(head, el('p', 'message-state', verb + ' · ' + outcome(m, state)));
    const parts = [
      block(m.kind === 'ask' ? 'Question' : 'Task', m.task),
      block('Context', m.context),
      block('Reply', m.reply, 'reply'),
      block(state === 'refused' ? 'Refused' : 'Error', m.error, 'error'),
      facts([['Asked at', iso(m.at)], ['Depth', m.depth > 1 ? m.depth : undefined]]),
    ];
    for (const part of parts) if (part) item.append(part);
    return item;
  };
  const messagesPart = (list) => {
    if (!list || list.length === 0) return null;
    const section = el('section', 'messages');
    section.append(el('h3', '', 'Messages between agents'));
    list.forEach((m, i) => section.append(messagePart(m, i)));
    return section;
  };
  function render(node, index) {
    const shown = index === undefined ? (node.runs || []).length - 1 : index;
    const run = index === undefined ? node : node.runs[index];
    byId('panel').replaceChildren();
    const title = el('h2', '', node.label + ' ');
    title.append(el('span', 'badge status-' + token(run.status), run.status));
    add(title, runButtons(node, shown), runFacts(node, run));
    add(block('Error', run.error, 'error'));
    add(...humanPart(node.human), waitPart(node.wait), sleepPart(node.sleep));
    add(mapPart(node.map), subflowPart(node.subflow));
    // A run's prompt holds the task with its inputs filled in; the definition's text only without one.
    if (!run.prompt) add(block('Task', node.description), block('Expected output', node.expectedOutput));
    add(block('Prompt', run.prompt), block('Context', run.context));
    add(messagesPart(run.messages), block('Output', run.output));
    if (run.structured !== undefined && asText(run.structured) !== run.output) {
      add(block('Structured output', asText(run.structured)));
    }
    add(notes(node.notes));
  }
  const select = (id, runId, message) => {
    const node = state.nodes.get(id);
    if (!node) return;
    state.selected = { id, runId, message };
    for (const e of document.querySelectorAll('[data-node]')) {
      e.classList.toggle('selected', e.getAttribute('data-node') === id);
    }
    for (const e of document.querySelectorAll('[data-timeline-node]')) {
      const same = e.getAttribute('data-timeline-node') === id && e.getAttribute('data-run') === runId;
      e.classList.toggle('selected', same && e.getAttribute('data-message') === message);
    }
    const at = (node.runs || []).findIndex((r) => r.id === runId);
    render(node, at < 0 || at === node.runs.length - 1 ? undefined : at);
    // A message clicked on the timeline: its entry in the panel, highlighted and in sight.
    const shown = message === null || message === undefined ? null : byId('panel').querySelector('[data-message-index="' + Number(message) + '"]');
    if (shown) {
      shown.classList.add('selected');
      shown.scrollIntoView({ block: 'nearest' });
    }
  };
`;
