/**
 * Starting a run: the served definitions (`GET /definitions`) in a list; for the one chosen, a field
 * per input its JSON Schema names (text, number, a checkbox, or JSON for anything else), or one JSON
 * box when it names none; `POST /runs`, then the new run opens.
 */
export const START_SCRIPT = `
  const starter = { definitions: [] };
  const inputControl = (name, schema, required) => {
    const type = schema && schema.type;
    const input = make(type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? 'input' : 'textarea');
    input.name = name;
    input.setAttribute('data-input-type', type || 'json');
    if (type === 'number' || type === 'integer') Object.assign(input, { type: 'number', step: type === 'integer' ? '1' : 'any' });
    else if (type === 'boolean') input.type = 'checkbox';
    else if (type === 'string') input.type = 'text';
    else input.rows = 2;
    if (required && type !== 'boolean') input.required = true;
    const hint = schema && schema.description ? ' — ' + schema.description : '';
    return field(name + (required ? '' : ' (optional)') + hint, input);
  };
  const renderInputs = () => {
    const definition = starter.definitions.find((d) => d.name === $('start-definition').value);
    const box = $('start-inputs');
    if (!definition) return box.replaceChildren();
    const schema = definition.inputs || {};
    const properties = Object.entries(schema.properties || {});
    const required = new Set(schema.required || []);
    if (properties.length === 0) return box.replaceChildren(field('Inputs (a JSON object, optional)', textArea('inputs-json', '{}')));
    box.replaceChildren(...properties.map(([name, property]) => inputControl(name, property, required.has(name))));
  };
  const inputValue = (input) => {
    const type = input.getAttribute('data-input-type');
    if (type === 'boolean') return input.checked;
    if (input.value === '') return undefined;
    if (type === 'number' || type === 'integer') return Number(input.value);
    if (type === 'string') return input.value;
    return parseJson(input.value, 'The input "' + input.name + '"');
  };
  const readInputs = () => {
    const json = $('start-form').elements['inputs-json'];
    if (json) return parseJson(json.value, 'The inputs') || {};
    const inputs = {};
    for (const input of $('start-inputs').querySelectorAll('[data-input-type]')) {
      const value = inputValue(input);
      if (value !== undefined) inputs[input.name] = value;
    }
    return inputs;
  };
  const loadDefinitions = async () => {
    try {
      starter.definitions = (await api.get('/definitions')).definitions;
      const select = $('start-definition');
      const chosen = select.value;
      select.replaceChildren(...starter.definitions.map((d) => {
        const option = make('option', '', d.name + ' · ' + (d.kind === 'crew' ? d.process + ' crew' : 'flow'));
        option.value = d.name;
        return option;
      }));
      if (chosen) select.value = chosen;
      renderInputs();
      showError($('start-error'), null);
    } catch (error) {
      showError($('start-error'), error);
    }
  };
  const bindStart = () => {
    $('start-definition').addEventListener('change', renderInputs);
    $('start-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = $('start-button');
      button.disabled = true;
      try {
        const { id } = await api.post('/runs', { definition: $('start-definition').value, inputs: readInputs() });
        showError($('start-error'), null);
        await loadRuns();
        location.hash = runHash(id);
      } catch (error) {
        showError($('start-error'), error);
      } finally {
        button.disabled = false;
      }
    });
  };
`;
