import { InvalidOptionError, RunNotFoundError, StoreRequiredError } from '../errors.js';
import type { Store } from '../stores/store.js';
import type { RunRestore } from './crew-run.js';
import { RUN_KEY, type StoredTaskResult } from './crew-store.js';
import type { Task } from './task.js';

/** What resuming needs of a crew. */
export interface ResumableCrew {
  readonly name: string;
  readonly store: Store | undefined;
  readonly tasks: readonly Task[];
  nodeIdOf(task: Task): string | undefined;
}

/** The task results (completed or failed) a store kept of `executionId`, in the order they were written. */
async function storedResults(
  crew: ResumableCrew,
  executionId: string,
  what: string,
  store: Store | undefined,
): Promise<StoredTaskResult[]> {
  if (store === undefined) throw new StoreRequiredError(`Crew "${crew.name}"`, `${what} a run`);
  const [rows, run] = await Promise.all([
    store.list('crew_task_results', executionId),
    store.get('crew_executions', executionId, RUN_KEY),
  ]);
  if (rows.length === 0 && run === undefined)
    throw new RunNotFoundError(`Crew "${crew.name}" ${what}`, executionId);
  return rows.map((row) => row.value as unknown as StoredTaskResult);
}

/** The task of a node id: its own, or a loop run's (`<task>#<iteration>`). */
function baseNodeId(nodeId: string): string {
  const hash = nodeId.lastIndexOf('#');
  return hash < 0 ? nodeId : nodeId.slice(0, hash);
}

const byNodeId = (results: StoredTaskResult[]) => new Map(results.map((r) => [r.nodeId, r]));

/** What `crew.resume(executionId)` restores: every completed result of one of the crew's tasks. */
export async function resumeRestore(
  crew: ResumableCrew,
  executionId: string,
  store: Store | undefined = crew.store,
): Promise<RunRestore> {
  const ids = new Set(crew.tasks.map((t) => crew.nodeIdOf(t)));
  const stored = await storedResults(crew, executionId, 'resume', store);
  const ofCrew = stored.filter((r) => ids.has(r.nodeId) || ids.has(baseNodeId(r.nodeId)));
  return {
    results: byNodeId(ofCrew.filter((r) => r.status === 'completed')),
    reached: new Set(ofCrew.map((r) => r.nodeId)),
  };
}

/**
 * What `crew.replay(executionId, { fromTask })` restores: the completed results of the tasks before
 * `fromTask` in the crew's order (a loop: in its first iteration); everything from it on runs again.
 */
export async function replayRestore(
  crew: ResumableCrew,
  executionId: string,
  fromTask: Task | string,
  store: Store | undefined = crew.store,
): Promise<RunRestore> {
  const ids = crew.tasks.map((t) => crew.nodeIdOf(t) as string);
  const from = typeof fromTask === 'string' ? ids.indexOf(fromTask) : crew.tasks.indexOf(fromTask);
  if (from < 0) {
    const named = typeof fromTask === 'string' ? fromTask : (fromTask.name ?? 'an unnamed task');
    throw new InvalidOptionError(`Crew "${crew.name}" replay`, 'fromTask', `one of ${ids.join(', ')}`, named);
  }
  const before = new Set(ids.slice(0, from));
  const keeps = (nodeId: string) =>
    before.has(nodeId) || (nodeId === `${baseNodeId(nodeId)}#1` && before.has(baseNodeId(nodeId)));
  const stored = await storedResults(crew, executionId, 'replay', store);
  const results = byNodeId(stored.filter((r) => r.status === 'completed' && keeps(r.nodeId)));
  return { results, reached: new Set(results.keys()), replayOf: executionId };
}
