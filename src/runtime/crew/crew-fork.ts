import { CheckpointNotFoundError, InvalidOptionError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import { checkCrewRun, readCrewRecords } from './crew-history.js';
import { baseNodeId, type ResumableCrew, storedInputs } from './crew-resume.js';
import type { StoredTaskResult } from './crew-store.js';
import { editedResult } from './fork-outputs.js';
import type { RunRestore } from './runnable-crew.js';
import type { Task } from './task.js';

/** Where a fork starts: the checkpoint, and the kept outputs to edit. */
export interface ForkPoint {
  at: string | number;
  outputs?: Readonly<Record<string, unknown>> | undefined;
}

/** What a fork takes from its source run: what it restores, and the inputs the source was started with. */
export interface ForkSource {
  restore: RunRestore;
  inputs: Record<string, unknown> | undefined;
}

/**
 * What `crew.fork(sourceId, { at, outputs })` restores from stored run `sourceId` of `crew`: the
 * completed results of the crew's tasks committed up to checkpoint `at` (its node id or seq), in commit
 * order, with `outputs` edited in; `at` itself is kept when it completed, run again when it failed
 * or paused. `run_not_found` for a run that is not this crew's, `checkpoint_not_found` for a
 * checkpoint the run has not committed, `invalid_option` for an output of a node not kept.
 */
export async function forkRestore(
  crew: ResumableCrew,
  sourceId: string,
  point: ForkPoint,
  store: Store,
): Promise<ForkSource> {
  const what = `Crew "${crew.name}" fork`;
  const [head, records] = await Promise.all([store.readRun(sourceId), readCrewRecords(store, sourceId)]);
  checkCrewRun(what, crew.name, sourceId, head, records);
  const results = records?.results ?? [];
  const index = checkpointIndex(results, point.at);
  const atResult = results[index];
  if (atResult === undefined) {
    throw new CheckpointNotFoundError(
      what,
      sourceId,
      point.at,
      results.map((r) => r.nodeId),
    );
  }
  const tasks = tasksByNodeId(crew);
  const upTo = results.slice(0, index + 1);
  const kept = upTo.filter((r) => r.status === 'completed' && taskOf(tasks, r.nodeId) !== undefined);
  const edited = editedResults(what, kept, tasks, point.outputs ?? {});
  const restore: RunRestore = {
    results: new Map(edited.map((r) => [r.nodeId, r])),
    reached: new Set(upTo.map((r) => r.nodeId)),
    kept: edited,
    forkedFrom: { runId: sourceId, checkpoint: atResult.nodeId },
  };
  return { restore, inputs: head === undefined ? undefined : storedInputs(head) };
}

/** The position of checkpoint `at` (a node id, or a seq from 1) in `results`; -1 when it has none. */
function checkpointIndex(results: readonly StoredTaskResult[], at: string | number): number {
  if (typeof at === 'number') return at >= 1 && at <= results.length ? at - 1 : -1;
  return results.findIndex((r) => r.nodeId === at);
}

/** The crew's tasks by node id. */
function tasksByNodeId(crew: ResumableCrew): Map<string, Task> {
  return new Map(crew.tasks.map((task) => [crew.nodeIdOf(task) as string, task]));
}

/** The task of a node id: its own, or a loop run's (`<task>#<iteration>`). */
function taskOf(tasks: ReadonlyMap<string, Task>, nodeId: string): Task | undefined {
  return tasks.get(nodeId) ?? tasks.get(baseNodeId(nodeId));
}

/** `kept`, with `outputs` edited in; an output for a node not kept is refused (`invalid_option`). */
function editedResults(
  where: string,
  kept: readonly StoredTaskResult[],
  tasks: ReadonlyMap<string, Task>,
  outputs: Readonly<Record<string, unknown>>,
): StoredTaskResult[] {
  const keptIds = kept.map((r) => r.nodeId);
  for (const nodeId of Object.keys(outputs)) {
    if (!keptIds.includes(nodeId)) {
      const expected =
        keptIds.length === 0
          ? 'nothing: the fork keeps no completed task'
          : `an output of a task the fork keeps: ${keptIds.join(', ')}`;
      throw new InvalidOptionError(where, `outputs.${nodeId}`, expected, nodeId);
    }
  }
  return kept.map((result) => {
    if (!Object.hasOwn(outputs, result.nodeId)) return result;
    const task = taskOf(tasks, result.nodeId) as Task;
    const named = { name: result.name, outputSchema: task.outputSchema };
    return editedResult(where, result, named, outputs[result.nodeId]);
  });
}
