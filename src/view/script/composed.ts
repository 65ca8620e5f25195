/**
 * The details panel's part for composed steps: `mapPart(map)` says what a map step's items run and
 * how many stand where, and lists the items the view holds (at most a hundred, under a closed
 * `<details>`: a 10,000-item map never builds 10,000 elements), each with its status and a link to
 * its child run (`#run=<child id>`, which the studio opens); `subflowPart(subflow)` lists a flow
 * step's child steps, where the run waits in it, and links its child run.
 */
export const COMPOSED_SCRIPT = `
  const runLink = (id, text) => {
    const a = el('a', 'child-run', text);
    a.href = '#run=' + encodeURIComponent(id);
    a.setAttribute('data-child-run', id);
    return a;
  };
  const countsLine = (c) =>
    c.completed + '/' + c.total + ' done' + (c.failed > 0 ? ' · ' + c.failed + ' failed' : '') + (c.running > 0 ? ' · ' + c.running + ' running' : '');
  const itemRow = (item, linked) => {
    const li = el('li', 'map-item');
    li.setAttribute('data-item-id', item.itemId);
    li.setAttribute('data-status', token(item.status));
    li.append(el('span', 'badge status-' + token(item.status === 'retrying' ? 'running' : item.status), item.status), el('span', 'item-id', ' #' + item.index + ' ' + item.itemId + ' '));
    if (item.attempt > 1) li.append(el('span', 'muted', 'attempt ' + item.attempt + ' '));
    if (linked) li.append(runLink(item.childId, 'open run'));
    if (item.error) li.append(el('div', 'item-error', (item.code ? item.code + ': ' : '') + item.error));
    return li;
  };
  const mapPart = (map) => {
    if (!map) return null;
    const section = el('section', 'map-part');
    const runs = map.runs === undefined ? undefined : map.runs + (map.target === undefined ? '' : ' ' + map.target);
    section.append(el('h3', '', 'Items'), facts([
      ['Each item runs', runs],
      ['At once', map.concurrency],
      ['Failed items', map.allowFailures ? 'kept: the step goes on' : undefined],
      ['Items', map.counts ? countsLine(map.counts) : undefined],
    ]));
    const items = map.items || [];
    if (items.length === 0) return section;
    const box = el('details', 'map-items');
    const total = items.length + (map.more || 0);
    box.append(el('summary', '', items.length === total ? 'Show the ' + total + ' items' : 'Show ' + items.length + ' of ' + total + ' items (failed and running first)'));
    const list = el('ol', 'item-list');
    const linked = map.runs !== 'function';
    for (const item of items) list.append(itemRow(item, linked));
    box.append(list);
    if (map.more > 0) box.append(el('p', 'more-items', '… ' + map.more + ' more'));
    section.append(box);
    return section;
  };
  const subSteps = (steps) => {
    const list = el('ul', 'sub-steps');
    for (const step of steps) {
      const li = el('li', 'sub-step');
      li.setAttribute('data-sub-step', step.name);
      li.append(el('span', 'badge status-' + token(step.status), step.status), el('span', '', ' ' + step.name));
      if (step.subflow) li.append(subSteps(step.subflow.steps));
      list.append(li);
    }
    return list;
  };
  const subflowPart = (subflow) => {
    if (!subflow) return null;
    const section = el('section', 'subflow-part');
    section.append(el('h3', '', 'Child flow ' + subflow.flow), facts([['Waits at', subflow.waitsAt]]));
    if (subflow.runId) {
      const p = el('p', 'child-line', 'Child run ');
      p.append(runLink(subflow.runId, subflow.runId));
      section.append(p);
    }
    section.append(subSteps(subflow.steps));
    return section;
  };
`;
