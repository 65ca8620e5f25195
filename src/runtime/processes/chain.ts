import type { AnyActorRef } from 'xstate';
import { ContextOrderError, MissingAgentError } from '../../errors.js';
import type { CrewPlan, PlannedTask } from '../crew/plan.js';
import { leafOutput, type ProcessSummary } from '../crew/result.js';
import type { RunRecorder } from '../engine/recorder.js';
import type { CrewRunScope } from '../process.js';

/** Checks that every task in a `context` list comes earlier in the crew (`context_forward_reference`). */
export function validateContextOrder(plan: CrewPlan): void {
  for (const planned of plan.tasks) {
    for (const refId of planned.contextIds ?? []) {
      const ref = plan.byNodeId.get(refId);
      if (ref === undefined || ref.index >= planned.index) throw new ContextOrderError(planned.nodeId, refId);
    }
  }
}

/**
 * Checks that every task has an agent and that every task in a `context` list comes earlier in the
 * crew, so a chain can run it in list order.
 */
export function validateChain(plan: CrewPlan, process: string): void {
  for (const planned of plan.tasks) {
    if (planned.agent === undefined) throw new MissingAgentError(planned.nodeId, process);
  }
  validateContextOrder(plan);
}

/**
 * The context of a task in a chain: `undefined` → the previous task's raw ('' for the first);
 * `[a, b]` → those tasks' outputs joined with '\n' in list order (a structured one as JSON); `[]` → ''.
 */
export function chainContext(plan: CrewPlan, planned: PlannedTask, recorder: RunRecorder): string {
  if (planned.contextIds === undefined) {
    const previous = plan.tasks[planned.index - 1];
    return previous === undefined ? '' : (recorder.contextOf(previous.nodeId) ?? '');
  }
  return planned.contextIds.map((id) => recorder.contextOf(id) ?? '').join('\n');
}

/** The raw of the completed task latest in list order ('' when none completed). */
export function latestRaw(
  tasks: readonly PlannedTask[],
  recorder: RunRecorder,
  nodeIdOf: (task: PlannedTask) => string = (task) => task.nodeId,
): string {
  for (let i = tasks.length - 1; i >= 0; i -= 1) {
    const found = recorder.rawOf(nodeIdOf(tasks[i] as PlannedTask));
    if (found !== undefined) return found;
  }
  return '';
}

/** A chain's result: raw of the completed task latest in list order; the last task is the leaf. */
export function chainSummary(
  tasks: readonly PlannedTask[],
  recorder: RunRecorder,
  nodeIdOf: (task: PlannedTask) => string = (task) => task.nodeId,
): ProcessSummary {
  const last = tasks[tasks.length - 1];
  const leaves = last === undefined ? [] : [nodeIdOf(last)];
  return { raw: latestRaw(tasks, recorder, nodeIdOf), ...leafOutput(recorder, leaves) };
}

/** Blocks the tasks from position `index` on (their runs named by `runId`), because `reason` failed. */
export function blockRest(
  scope: CrewRunScope,
  index: number,
  reason: string,
  supervisor: AnyActorRef,
  runId: (task: PlannedTask) => string = (task) => task.nodeId,
): void {
  scope.block(scope.plan.tasks.slice(index).map(runId), reason, supervisor);
}
