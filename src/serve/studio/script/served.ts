/**
 * Runs of definitions this server does not serve: the list shows them like any other and the run
 * view draws them from what the store keeps, but nothing here can run them, so the open run says so
 * and offers no answer or resume.
 */
export const SERVED_SCRIPT = `
  const servedHere = (detail) => starter.definitions.some((d) => d.name === detail.definition);
  const renderServed = (detail) => {
    const served = servedHere(detail);
    const note = $('run-note');
    note.textContent = served
      ? ''
      : 'This server does not serve "' + detail.definition + '": the run is drawn from what the store keeps of it (the steps and tasks it reached, without its definition\\'s edges), and it cannot be answered or resumed here.';
    note.hidden = served;
    return served;
  };
`;
