/** The studio's start: bind every control, load the definitions and runs, open the run (or the comparison) the address names. */
export const BOOT_SCRIPT = `
  const loadAll = () => Promise.all([loadDefinitions(), loadRuns()]).then(route);
  bindToken(loadAll);
  bindRuns();
  bindStart();
  bindRunPane();
  bindCheckpoints();
  loadAll();
  pollRuns();
`;
