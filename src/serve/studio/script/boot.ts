/** The studio's start: bind every control, load the definitions and runs, open the run the address names. */
export const BOOT_SCRIPT = `
  const loadAll = () => Promise.all([loadDefinitions(), loadRuns()]).then(() => openRun(runOfHash()));
  bindToken(loadAll);
  bindRuns();
  bindStart();
  bindRunPane();
  loadAll();
  pollRuns();
`;
