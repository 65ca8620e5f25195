import type { TaskWait } from '../../actors/pause.js';
import { StoreRequiredError } from '../../errors.js';
import type { CrewPending } from '../../types.js';
import type { NodeRecord } from '../engine/recorder.js';
import { type FactSource, factsOf, type PauseReason } from './crew-facts.js';
import type { CrewPlan } from './plan.js';

/** Whether a settled node waits for a human (its run paused) rather than completed or failed. */
export function isPaused(record: Pick<NodeRecord, 'status'>): boolean {
  return record.status === 'waiting';
}

/** What a waiting node waits for, as a result's `pending` lists it. */
export function pendingOf(nodeId: string, wait: TaskWait): CrewPending {
  if (wait.kind === 'review') return { kind: 'review', nodeId, output: wait.output };
  const { tool, args, callId, agent } = wait.pause.waiting;
  return { kind: 'approval', nodeId, tool, args, callId, agent };
}

/** What every waiting node of a run waits for, in the plan's order (a loop's by iteration first). */
export function pendingIn(records: readonly NodeRecord[], plan: CrewPlan): CrewPending[] {
  const pending = records.flatMap((record) =>
    record.wait === undefined ? [] : [pendingOf(record.nodeId, record.wait)],
  );
  return pending.sort((a, b) => compareNodes(plan, a.nodeId, b.nodeId));
}

/** Plan order of two node ids: by iteration (`<task>#<n>`), then by the task's position. */
function compareNodes(plan: CrewPlan, a: string, b: string): number {
  const [taskA, iterationA] = splitNodeId(a);
  const [taskB, iterationB] = splitNodeId(b);
  if (iterationA !== iterationB) return iterationA - iterationB;
  const at = (task: string) => plan.byNodeId.get(task)?.index ?? Number.MAX_SAFE_INTEGER;
  return at(taskA) - at(taskB);
}

/** A node id's task and iteration (1 for a node id without `#<n>`). */
function splitNodeId(nodeId: string): [string, number] {
  const match = /^(.*)#(\d+)$/.exec(nodeId);
  return match === null ? [nodeId, 1] : [match[1] as string, Number(match[2])];
}

/** Whether runs of `crew` could pause for a human (a task with `humanInput`, a tool that may wait). */
export function crewCouldPause(crew: FactSource): boolean {
  return factsOf(crew).pauseReason !== undefined;
}

/**
 * Refuses a kickoff without a store of a crew that could pause (`store_required`), before any call: a
 * task with `humanInput`, or a tool that may wait for approval on a task, a task's agent, one of the
 * crew's agents or its summarizer (`reason`, the crew's facts found it). A paused run is kept in the
 * store until its answers come.
 */
export function checkCanPause(crew: string, reason: PauseReason, hasStore: boolean): void {
  if (hasStore || reason === undefined) return;
  const why =
    reason.kind === 'review'
      ? `pause when task "${reason.nodeId}" waits for a human's review (humanInput)`
      : `pause when tool "${reason.tool.name}" waits for approval`;
  throw new StoreRequiredError(`Crew "${crew}"`, why);
}
