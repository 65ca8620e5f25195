/**
 * Two runs side by side (`#compare=<a>/<b>`, from `GET /runs/:a/diff/:b`): each run's path in commit
 * order, where the paths part, and each node that differs — highlighted in both paths, a button to
 * its values — with its status, output and state in each run, the fields that differ marked. The
 * address decides what the run column shows: a run (`#run=`), a comparison, or neither.
 */
export const COMPARE_SCRIPT = `
  const compare = { generation: 0 };
  const compareOfHash = () => {
    const match = /^#compare=([^/]+)\\/(.+)$/.exec(location.hash);
    if (!match) return null;
    try { return [decodeURIComponent(match[1]), decodeURIComponent(match[2])]; } catch (_) { return null; }
  };
  const compareValue = (checkpoint, name, differs) => {
    const section = make('section', 'compare-value' + (differs ? ' differs' : ''));
    section.setAttribute('data-field', name);
    const value = checkpoint ? checkpoint[name === 'output' && checkpoint.structured !== undefined ? 'structured' : name] : undefined;
    section.append(make('h4', '', name + (differs ? ' · differs' : '')), make('pre', '', checkpoint ? asEditable(value) : '—'));
    return section;
  };
  const compareSide = (diff, node, side) => {
    const checkpoint = node[side];
    const box = make('div', 'compare-side');
    box.setAttribute('data-side', side);
    box.append(make('p', 'compare-side-run', diff[side] + (checkpoint ? ' · #' + checkpoint.seq : ' · not reached')));
    const fields = ['status', 'output'].concat((checkpoint && checkpoint.state !== undefined) || node.fields.includes('state') ? ['state'] : []);
    for (const name of fields) box.append(compareValue(checkpoint, name, node.fields.includes(name)));
    return box;
  };
  const CHANGE_TEXT = { changed: 'differs', added: 'only in the second run', removed: 'only in the first run' };
  const compareNode = (diff, node, index) => {
    const section = make('section', 'compare-node');
    Object.assign(section, { id: 'compare-node-' + index, tabIndex: -1 });
    section.setAttribute('data-node-id', node.nodeId);
    section.setAttribute('data-change', node.change);
    const what = CHANGE_TEXT[node.change] + (node.fields.length > 0 ? ' (' + node.fields.join(', ') + ')' : '');
    const sides = make('div', 'compare-sides');
    sides.append(compareSide(diff, node, 'a'), compareSide(diff, node, 'b'));
    section.append(make('h3', '', node.nodeId + ' · ' + what), sides);
    return section;
  };
  const pathItem = (nodeId, index, diff, side) => {
    const item = make('li');
    const at = diff.nodes.findIndex((n) => n.nodeId === nodeId);
    if (diff.path.divergesAt !== undefined && index >= diff.path.divergesAt) item.className = 'parted';
    if (at < 0) { item.append(make('span', 'path-node', nodeId)); return item; }
    const button = make('button', 'path-node differs', nodeId);
    Object.assign(button, { type: 'button', title: nodeId + ': ' + CHANGE_TEXT[diff.nodes[at].change] });
    button.setAttribute('data-node-id', nodeId);
    button.setAttribute('data-change', diff.nodes[at].change);
    button.addEventListener('click', () => {
      const target = $('compare-node-' + at);
      target.scrollIntoView({ block: 'nearest' });
      target.focus();
    });
    item.append(button);
    return item;
  };
  const comparePath = (diff, side) => {
    const box = make('section', 'compare-run');
    box.setAttribute('data-side', side);
    const title = make('h3', '', side === 'a' ? 'First run ' : 'Second run ');
    title.append(link(runHash(diff[side]), diff[side], 'compare-run-link'));
    const path = make('ol', 'compare-path');
    path.setAttribute('aria-label', 'Path of ' + diff[side]);
    path.append(...diff.path[side].map((nodeId, index) => pathItem(nodeId, index, diff, side)));
    box.append(title, path);
    return box;
  };
  const compareSummary = (diff) => {
    if (diff.same) return 'The two runs took the same path with the same statuses, outputs and states.';
    const parted = diff.path.same ? 'Same path' : 'The paths part at their node ' + (diff.path.divergesAt + 1);
    return parted + ' · ' + diff.nodes.length + (diff.nodes.length === 1 ? ' node differs' : ' nodes differ');
  };
  const renderCompare = (diff) => {
    const paths = make('div', 'compare-paths');
    paths.append(comparePath(diff, 'a'), comparePath(diff, 'b'));
    $('compare-summary').textContent = compareSummary(diff);
    $('compare-body').replaceChildren(paths, ...diff.nodes.map((node, index) => compareNode(diff, node, index)));
  };
  const openCompare = async ([a, b]) => {
    const generation = ++compare.generation;
    $('compare-area').hidden = false;
    $('run-empty').hidden = true;
    $('compare-summary').textContent = 'Comparing…';
    $('compare-body').replaceChildren();
    showError($('compare-error'), null);
    try {
      const diff = await api.get(runPath(a, '/diff/' + encodeURIComponent(b)));
      if (generation === compare.generation) renderCompare(diff);
    } catch (error) {
      if (generation !== compare.generation) return;
      $('compare-summary').textContent = '';
      showError($('compare-error'), error);
    }
  };
  // What the address names: the evals page, a comparison, else a run (or nothing).
  const route = () => {
    if (routeEvals()) {
      compare.generation += 1;
      $('compare-area').hidden = true;
      return openRun(null);
    }
    const pair = compareOfHash();
    if (pair) {
      openRun(null);
      return openCompare(pair);
    }
    compare.generation += 1;
    $('compare-area').hidden = true;
    return openRun(runOfHash());
  };
`;
