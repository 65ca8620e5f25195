import type { ConversationPause } from '../../actors/pause.js';
import { StoreRequiredError } from '../../errors.js';
import type { CrewPending, Failure, TaskOutput } from '../../types.js';
import type { NodeRecord } from '../engine/recorder.js';
import { type FactSource, factsOf, type PauseReason } from './crew-facts.js';
import type { CrewPlan } from './plan.js';

/**
 * What a paused task run waits for, as its failure's details carry it (`awaiting_human`) and its
 * stored result keeps it: a tool call to approve (where its conversation stands), or its output to
 * review.
 */
export type TaskWait =
  | { kind: 'approval'; pause: ConversationPause }
  | { kind: 'review'; output: TaskOutput };

/** The code of the failure that ends the attempt of a task run waiting for a human. */
export const AWAITING_HUMAN = 'awaiting_human';

/** What a task run waits for, when its failure says it waits for a human; else undefined. */
export function waitOf(failure: Failure | undefined): TaskWait | undefined {
  if (failure?.code !== AWAITING_HUMAN) return undefined;
  const details = failure.details as Partial<{ kind: string; pause: unknown; output: unknown }> | undefined;
  if (details?.kind === 'approval' && details.pause !== undefined) {
    return { kind: 'approval', pause: details.pause as ConversationPause };
  }
  if (details?.kind === 'review' && details.output !== undefined) {
    return { kind: 'review', output: details.output as TaskOutput };
  }
  return undefined;
}

/** Whether a settled node waits for a human (its run paused) rather than failed. */
export function isPaused(record: Pick<NodeRecord, 'errorCode'>): boolean {
  return record.errorCode === AWAITING_HUMAN;
}

/** What a paused node waits for, as a result's `pending` lists it. */
export function pendingOf(nodeId: string, wait: TaskWait): CrewPending {
  if (wait.kind === 'review') return { kind: 'review', nodeId, output: wait.output };
  const { tool, args, callId, agent } = wait.pause.waiting;
  return { kind: 'approval', nodeId, tool, args, callId, agent };
}

/** What every paused node of a run waits for, in the plan's order (a loop's by iteration first). */
export function pendingIn(records: readonly NodeRecord[], plan: CrewPlan): CrewPending[] {
  const pending = records.flatMap((record) => {
    const wait = isPaused(record) ? waitOf(record.failure) : undefined;
    return wait === undefined ? [] : [pendingOf(record.nodeId, wait)];
  });
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
