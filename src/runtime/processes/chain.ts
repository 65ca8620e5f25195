import type { AnyActorRef } from 'xstate';
import { ContextOrderError, MissingAgentError } from '../../errors.js';
import type { CrewPlan, PlannedTask } from '../crew/plan.js';
import { leafOutput, type ProcessSummary } from '../crew/result.js';
import type { RunRecorder } from '../engine/recorder.js';
import type { ContextDefault, CrewRunScope } from '../process.js';

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
 * What CrewAI puts between the earlier outputs a task without `context` reads: `DIVIDERS` in
 * crewai/utilities/formatter.py, which `aggregate_raw_outputs_from_task_outputs` joins them with.
 */
export const CREWAI_CONTEXT_DIVIDER = '\n\n----------\n\n';

/**
 * The contexts of a chain's tasks, by position, for one run: a task with `[a, b]` reads those tasks'
 * outputs joined with '\n' in list order (a structured one as JSON), `[]` reads ''. One with
 * `context` undefined reads, under `'previous'`, the previous task's output ('' for the first);
 * under `'all'`, every earlier task's output joined with {@link CREWAI_CONTEXT_DIVIDER} (CrewAI's
 * `_get_context`), extended one task at a time so a run stays linear. `runOf` names a task's run.
 */
export function chainContexts(
  plan: CrewPlan,
  recorder: RunRecorder,
  mode: ContextDefault = 'previous',
  runOf: (task: PlannedTask) => string = (task) => task.nodeId,
): (planned: PlannedTask) => string {
  const outputOf = (task: PlannedTask | undefined) =>
    task === undefined ? '' : (recorder.contextOf(runOf(task)) ?? '');
  let accumulated = '';
  let through = 0;
  return (planned) => {
    if (planned.contextIds !== undefined) {
      return planned.contextIds.map((id) => outputOf(plan.byNodeId.get(id))).join('\n');
    }
    if (mode === 'previous') return outputOf(plan.tasks[planned.index - 1]);
    // A task run again (a retry) reads what it read the first time.
    if (through > planned.index) return earlierOutputs(plan, planned.index, outputOf);
    for (; through < planned.index; through += 1) {
      const output = outputOf(plan.tasks[through]);
      accumulated = through === 0 ? output : `${accumulated}${CREWAI_CONTEXT_DIVIDER}${output}`;
    }
    return accumulated;
  };
}

function earlierOutputs(
  plan: CrewPlan,
  index: number,
  outputOf: (task: PlannedTask | undefined) => string,
): string {
  return plan.tasks.slice(0, index).map(outputOf).join(CREWAI_CONTEXT_DIVIDER);
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
