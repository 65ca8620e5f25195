/**
 * The fork editor of a chosen checkpoint: for a flow, its state as JSON (pre-filled with the state
 * the checkpoint left; the top-level fields changed are sent, as a patch); for any run, the output of the checkpoint's node and of each node kept
 * before it (raw text, or JSON for a structured value), of which only those changed are sent; new
 * inputs (a JSON object) and a new run id, both optional. "Fork" checks every JSON box first — a bad
 * one is said in the form and nothing is sent — then posts `{ at, state?, outputs?, inputs?, id? }`
 * to `POST /runs/:id/fork` and opens the new run; the server's refusal shows with its code.
 */
export const FORK_SCRIPT = `
  const forkFail = (message) => {
    const error = new Error(message);
    error.code = 'invalid_json';
    return error;
  };
  const forkJson = (text, what) => {
    if (text.trim() === '') return undefined;
    try { return JSON.parse(text); } catch (bad) {
      throw forkFail(what + ' is not JSON (' + bad.message + '): nothing was sent');
    }
  };
  const forkObject = (text, what) => {
    const value = forkJson(text, what);
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value)))
      throw forkFail(what + ' must be a JSON object, such as {"amount": 5}: nothing was sent');
    return value;
  };
  // Only the fields changed go: the state is a patch, and the run's own fields (its id) stay the fork's.
  const statePatch = (edited, original) => {
    if (edited === undefined) return undefined;
    const before = original !== null && typeof original === 'object' ? original : {};
    const patch = {};
    for (const [key, value] of Object.entries(edited))
      if (JSON.stringify(value) !== JSON.stringify(before[key])) patch[key] = value;
    return Object.keys(patch).length === 0 ? undefined : patch;
  };
  // The node's latest output up to the chosen checkpoint: the chosen node first, then the others in commit order.
  const keptOutputs = (run, checkpoint) => {
    const latest = new Map();
    for (const c of run.checkpoints) if (c.seq <= checkpoint.seq) latest.set(c.nodeId, c);
    latest.delete(checkpoint.nodeId);
    return [checkpoint, ...latest.values()];
  };
  const outputField = (checkpoint) => {
    const value = checkpoint.structured !== undefined ? checkpoint.structured : checkpoint.output;
    const area = textArea('output', typeof value === 'string' ? 'Its text' : 'Its value, as JSON');
    area.value = asEditable(value);
    area.rows = Math.min(8, Math.max(2, area.value.split('\\n').length));
    area.setAttribute('data-output-node', checkpoint.nodeId);
    area.setAttribute('data-output-kind', typeof value === 'string' ? 'text' : 'json');
    area.setAttribute('data-original', area.value);
    return field('Output of ' + checkpoint.nodeId + (typeof value === 'string' ? ' (text)' : ' (JSON)'), area);
  };
  const outputFields = (run, checkpoint) => {
    const [own, ...earlier] = keptOutputs(run, checkpoint).map(outputField);
    if (earlier.length === 0) return [own];
    const more = make('details', 'fork-earlier');
    more.append(make('summary', '', 'Outputs of the ' + (earlier.length === 1 ? 'node' : earlier.length + ' nodes') + ' kept before it'), ...earlier);
    return [own, more];
  };
  const editedOutputs = (form) => {
    let outputs;
    for (const area of form.querySelectorAll('[data-output-node]')) {
      if (area.value === area.getAttribute('data-original')) continue;
      const node = area.getAttribute('data-output-node');
      const value = area.getAttribute('data-output-kind') === 'text' ? area.value : forkJson(area.value, 'The output of "' + node + '"');
      if (value === undefined) continue;
      outputs = outputs || {};
      outputs[node] = value;
    }
    return outputs;
  };
  const forkBody = (form, checkpoint) => {
    const body = { at: checkpoint.checkpoint };
    const state = form.elements.state;
    if (state) {
      const patch = statePatch(forkObject(state.value, 'The state'), checkpoint.state);
      if (patch !== undefined) body.state = patch;
    }
    const outputs = editedOutputs(form);
    if (outputs) body.outputs = outputs;
    const inputs = forkObject(form.elements.inputs.value, 'The inputs');
    if (inputs !== undefined) body.inputs = inputs;
    const id = form.elements['fork-id'].value.trim();
    if (id !== '') body.id = id;
    return body;
  };
  const stateField = (checkpoint) => {
    const area = textArea('state');
    area.value = checkpoint.state === undefined ? '' : JSON.stringify(checkpoint.state, null, 2);
    area.rows = Math.min(12, Math.max(3, area.value.split('\\n').length));
    return field('State (a JSON object: the fields you change are what the fork starts from)', area);
  };
  const idField = () => {
    const input = make('input');
    Object.assign(input, { type: 'text', name: 'fork-id', autocomplete: 'off', spellcheck: false });
    return field('New run id (optional)', input);
  };
  const sendFork = async (form, run, checkpoint, error) => {
    let body;
    try {
      body = forkBody(form, checkpoint);
    } catch (bad) {
      showError(error, bad);
      return;
    }
    const { id } = await api.post(runPath(run.id, '/fork'), body);
    showError(error, null);
    await loadRuns();
    location.hash = runHash(id);
  };
  const forkEditor = (run, checkpoint) => {
    const form = make('form', 'fork-form');
    form.setAttribute('aria-labelledby', 'fork-title');
    const error = make('output', 'form-error');
    Object.assign(error, { id: 'fork-error', hidden: true });
    error.setAttribute('role', 'alert');
    const parts = [make('h3', '', 'Fork from here')];
    parts[0].id = 'fork-title';
    if (!starter.definitions.some((d) => d.name === run.name)) {
      parts.push(make('p', 'hint', 'This server does not serve "' + run.name + '": it cannot fork this run.'));
      form.append(...parts);
      return form;
    }
    parts.push(make('p', 'hint', 'The fork keeps every node up to this checkpoint (no model call for them), with your edits, and runs on from there.'));
    if (run.kind === 'flow') parts.push(stateField(checkpoint));
    parts.push(...outputFields(run, checkpoint), field('Inputs (a JSON object, optional)', textArea('inputs', '{}')), idField(), error, submitButton('Fork'));
    form.append(...parts);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        await sendFork(form, run, checkpoint, error);
      } catch (refused) {
        showError(error, refused);
      } finally {
        button.disabled = false;
      }
    });
    return form;
  };
`;
