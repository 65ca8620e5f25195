/**
 * What a paused run waits for, each as a form: a flow's human step (its prompt and payload, feedback,
 * a button per route), a wait step (the event's payload, as JSON), a crew's — or a crew step's —
 * tool calls to approve or refuse and task outputs to accept or send back. A wait inside a child
 * flow is one of these forms named by its path (`review › approve`), answered through this run: its
 * `step` is the path. Each form posts to the run's `resume` or `signal` route and shows the server's
 * error (its code and message) when refused.
 */
export const ANSWERS_SCRIPT = `
  const asJson = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  const field = (labelText, control) => {
    const label = make('label', 'field');
    label.append(make('span', 'field-name', labelText), control);
    return label;
  };
  const textArea = (name, placeholder) => {
    const area = make('textarea');
    area.name = name;
    area.rows = 3;
    if (placeholder) area.placeholder = placeholder;
    return area;
  };
  const shown = (title, value) => {
    const box = make('details', 'shown');
    box.append(make('summary', '', title), make('pre', '', asJson(value)));
    return box;
  };
  const waitForm = (title, parts, onSubmit) => {
    const form = make('form', 'wait-form');
    const error = make('output', 'form-error');
    error.setAttribute('role', 'alert');
    error.hidden = true;
    form.append(make('h3', '', title), ...parts, error);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      // The button that sent it (a human step's route); the first one when sent otherwise.
      const button = event.submitter || form.querySelector('button[type="submit"]');
      for (const b of form.querySelectorAll('button')) b.disabled = true;
      let body;
      try {
        body = onSubmit(form, button);
      } catch (bad) {
        showError(error, bad);
        for (const b of form.querySelectorAll('button')) b.disabled = false;
        return;
      }
      if (!(await act(body.path, body.body, error))) {
        for (const b of form.querySelectorAll('button')) b.disabled = false;
      }
    });
    return form;
  };
  const submitButton = (text, value) => {
    const button = make('button', 'primary', text);
    button.type = 'submit';
    if (value !== undefined) button.value = value;
    return button;
  };
  const parseJson = (text, what) => {
    if (text.trim() === '') return undefined;
    try { return JSON.parse(text); } catch (_) {
      const error = new Error(what + ' is not JSON: write a JSON value, such as {"paid": 42} or "yes"');
      error.code = 'invalid_json';
      throw error;
    }
  };
  const humanForm = (wait) => {
    const routes = make('div', 'routes');
    routes.append(...wait.routes.map((route) => submitButton(route, route)));
    const parts = [make('p', 'prompt', wait.prompt), shown('What it was given', wait.payload), field('Feedback (optional)', textArea('feedback', 'What to tell the next step')), routes];
    return waitForm('Step "' + wait.step + '" asks', parts, (form, button) => {
      const body = { route: button.value, step: wait.step };
      const feedback = form.elements.feedback.value;
      if (feedback.trim() !== '') body.feedback = feedback;
      return { path: '/resume', body };
    });
  };
  const eventForm = (wait) => {
    const parts = [make('p', 'prompt', 'Waits for the event "' + wait.event + '".'), field('Payload (JSON, optional)', textArea('payload', '{"paid": 42}')), submitButton('Send "' + wait.event + '"')];
    return waitForm('Step "' + wait.step + '" waits', parts, (form) => {
      const body = { event: wait.event };
      const payload = parseJson(form.elements.payload.value, 'The payload');
      if (payload !== undefined) body.payload = payload;
      return { path: '/signal', body };
    });
  };
  const choice = (name, yes, no) => {
    const group = make('div', 'choice');
    for (const [value, text] of [['yes', yes], ['no', no]]) {
      const input = make('input');
      Object.assign(input, { type: 'radio', name, value, checked: value === 'yes' });
      const label = make('label');
      label.append(input, document.createTextNode(' ' + text));
      group.append(label);
    }
    return group;
  };
  const crewItem = (item, i) => {
    const box = make('fieldset', 'crew-item');
    if (item.kind === 'approval') {
      box.append(make('legend', '', 'Tool call: ' + item.tool + ' by ' + item.agent), shown('Arguments', item.args), choice('answer' + i, 'Run it', 'Refuse it'), field('Feedback for the model', textArea('feedback' + i)));
    } else {
      box.append(make('legend', '', 'Output of ' + item.nodeId), shown('Output', item.output && item.output.raw !== undefined ? item.output.raw : item.output), choice('answer' + i, 'Accept it', 'Send it back'), field('What to change', textArea('feedback' + i)));
    }
    return box;
  };
  const crewAnswers = (form, items, step) => {
    const body = {};
    items.forEach((item, i) => {
      const approve = form.elements['answer' + i].value === 'yes';
      const feedback = form.elements['feedback' + i].value.trim();
      const answer = { approve };
      if (feedback !== '') answer.feedback = feedback;
      const key = item.kind === 'approval' ? 'approvals' : 'reviews';
      body[key] = body[key] || {};
      body[key][item.kind === 'approval' ? item.callId : item.nodeId] = answer;
    });
    if (step !== undefined) body.step = step;
    return { path: '/resume', body };
  };
  const crewForm = (items, step, title) =>
    waitForm(title, [...items.map(crewItem), submitButton('Send the answers')], (form) => crewAnswers(form, items, step));
  // A flow step whose child flow paused waits where the child waits: each innermost wait, named by
  // its path from the run ('review › approve'), is answered through this run with that path as its step.
  const leafWaits = (pending, above) => pending.flatMap((wait) => {
    const path = above.concat(wait.step);
    if (wait.kind === 'flow') return leafWaits(wait.pending || [], path);
    return [Object.assign({}, wait, { step: path.join(' › ') })];
  });
  const waitForms = (detail) => {
    const pending = detail.pending || [];
    if (detail.kind === 'crew') return pending.length === 0 ? [] : [crewForm(pending, undefined, 'The crew waits for you')];
    return leafWaits(pending, []).map((wait) => {
      const form = wait.kind === 'human' ? humanForm(wait) : wait.kind === 'event' ? eventForm(wait)
        : crewForm(wait.pending || [], wait.step, 'Step "' + wait.step + '": its crew ' + wait.crew + ' waits for you');
      form.setAttribute('data-wait-path', wait.step);
      return form;
    });
  };
  // A run this server does not serve gets no form: nothing here could take the answer.
  // The forms are built again only when the run paused anew (its head changed) or waits for other
  // answers: a refresh of the same pause keeps what was typed, and the error a form shows.
  let shownWaits = '';
  const renderWaits = (detail, served) => {
    const waits = detail.status === 'paused' && served ? JSON.stringify([detail.id, detail.updatedAt, detail.pending || []]) : '';
    if (waits !== shownWaits) {
      shownWaits = waits;
      $('wait-forms').replaceChildren(...(waits === '' ? [] : waitForms(detail)));
    }
    $('waits').hidden = $('wait-forms').childElementCount === 0;
  };
`;
