/**
 * The idempotency key of node run `nodeId` of run `runId`: `<run id>:<node id>`. Both parts are kept
 * with the run (a node id names its visit: `step#2`, `task#3`), so every attempt of the node run, and
 * every owner that runs it again after a takeover or a crash, derives the same key; another node run,
 * or another run, gets another one.
 */
export function nodeRunKey(runId: string, nodeId: string): string {
  return `${runId}:${nodeId}`;
}
