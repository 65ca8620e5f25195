import { leafWaits, PATH_SEPARATOR, type PendingStep } from '../machines/flow/waits.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';

/** A word as a POSIX shell reads it back: as is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** When a waiting step times out: ` (times out at <ISO time>)`, or nothing. */
function deadlineText(step: PendingStep): string {
  return step.timeoutAt === undefined ? '' : ` (times out at ${new Date(step.timeoutAt).toISOString()})`;
}

/** What one waiting step waits for, and the command (or call) that answers it. */
function stepLines(id: string, step: PendingStep, several: boolean): string[] {
  if (step.kind === 'event') {
    const event = shellWord(step.event);
    return [
      `Step "${step.step}" waits for event "${step.event}"${deadlineText(step)}.`,
      `Signal it with: statecrew signal ${id} ${event} [--payload <json>] (or flow.signal("${id}", "${step.event}", payload)).`,
    ];
  }
  if (step.kind === 'flow') {
    // The innermost waits, each named by its path and answered through this run.
    return [
      `Step "${step.step}": flow "${step.flow}" (run ${step.runId}) waits at ${step.path}.`,
      ...leafWaits([step]).flatMap((leaf) =>
        stepLines(id, { ...leaf.wait, step: leaf.path.join(PATH_SEPARATOR) }, true),
      ),
    ];
  }
  if (step.kind === 'crew') {
    const items = step.pending.map((w) =>
      w.kind === 'approval' ? `call ${w.callId} (${w.agent} → ${w.tool})` : `the review of ${w.nodeId}`,
    );
    return [
      `Step "${step.step}": crew "${step.crew}" (run ${step.executionId}) waits for ${items.join(', ')}.`,
      `Answer it with flow.resume("${id}", { approvals, reviews }).`,
    ];
  }
  const which = several ? ` --step ${shellWord(step.step)}` : '';
  return [
    `Step "${step.step}" asks: ${step.prompt}${deadlineText(step)}`,
    `Answer with: statecrew resume ${id}${which} --route <${step.routes.join(' | ')}> [--feedback <text>] (or flow.resume("${id}", { route, feedback })).`,
  ];
}

/** Every step a paused flow run waits for (`waiting`, else its one `pending`). */
export function waitingSteps(out: FlowOutput<object>): PendingStep[] {
  return out.waiting ?? (out.pending === undefined ? [] : [out.pending]);
}

/**
 * A paused flow run's text: what each waiting step waits for — a human step's prompt, a wait step's
 * event — and how to go on: `statecrew resume` for a human, `statecrew signal` for an event.
 */
export function pausedText(out: FlowOutput<object>, flow: string): string {
  const steps = waitingSteps(out);
  const lines = steps.flatMap((step) => stepLines(out.id, step, steps.length > 1));
  return [`Flow "${flow}" run ${out.id} paused.`, ...lines].join('\n');
}

/** The events a paused run's wait steps (its child flows' too) wait for, each once, in order. */
export function waitedEvents(steps: readonly PendingStep[]): string[] {
  const leaves = leafWaits(steps).map((leaf) => leaf.wait);
  return [...new Set(leaves.flatMap((step) => (step.kind === 'event' ? [step.event] : [])))];
}
