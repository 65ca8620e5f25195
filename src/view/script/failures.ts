/**
 * The list of failed and blocked nodes: `renderFailures()` fills it from the data, each entry a
 * button naming the node, its status and its error (or, for a blocked node, the failed or blocked
 * nodes before it); the card is hidden when there is none.
 */
export const FAILURES_SCRIPT = `
  const failing = (node) => node.status === 'failed' || node.status === 'blocked';
  const reasonOf = (node, before) => {
    if (node.status === 'failed') return node.error || node.code || 'failed';
    const causes = (before.get(node.id) || []).map((id) => state.nodes.get(id)).filter((n) => n && failing(n));
    if (causes.length === 0) return node.error || 'blocked';
    return 'blocked by ' + causes.map((n) => n.label + ' (' + n.status + ')').join(', ');
  };
  const failureItem = (node, before) => {
    const button = el('button', 'failure');
    button.type = 'button';
    button.setAttribute('data-failure', node.id);
    const head = el('span', 'failure-head');
    const status = node.status + (node.handled ? ', handled' : '');
    head.append(el('span', 'badge status-' + token(node.status), status), el('strong', '', node.label));
    button.append(head, el('span', 'failure-reason', reasonOf(node, before)));
    const item = el('li');
    item.append(button);
    return item;
  };
  const renderFailures = () => {
    const card = byId('failures');
    const list = card && card.querySelector('ul.failures');
    if (!list) return;
    const before = new Map();
    for (const edge of state.data.edges || []) {
      if (edge.back) continue;
      const from = before.get(edge.to);
      if (from) from.push(edge.from);
      else before.set(edge.to, [edge.from]);
    }
    const nodes = (state.data.nodes || []).filter(failing);
    card.hidden = nodes.length === 0;
    const title = byId('failures-title');
    if (title) title.textContent = 'Failed and blocked (' + nodes.length + ')';
    list.replaceChildren(...nodes.map((node) => failureItem(node, before)));
  };
`;
