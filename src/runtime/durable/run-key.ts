/** The key of a run's own document in its collections (`crew_executions`, `flow_runs`). */
export const RUN_KEY = 'run';
