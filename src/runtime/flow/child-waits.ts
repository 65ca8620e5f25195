import { leafWaits, PATH_SEPARATOR, type PendingFlow, type PendingStep } from '../../machines/flow/waits.js';
import type { NodeWait } from '../../machines/lifecycle.js';

/**
 * Thrown by a child flow run that paused (a human step, a wait, a crew's human inside it): not a
 * failure of the flow step that started it, which waits until the child's answers come (in a resume
 * or signal of the parent).
 */
export class FlowChildWaits extends Error {
  constructor(
    readonly flow: string,
    readonly runId: string,
    readonly pending: readonly PendingStep[],
  ) {
    super(`Flow "${flow}" run "${runId}" waits`);
    this.name = 'FlowChildWaits';
  }
}

/** The earliest deadline among `pending` (nested child waits included), if any has one. */
export function earliestOf(pending: readonly PendingStep[]): number | undefined {
  let earliest: number | undefined;
  for (const p of pending) {
    const at = p.timeoutAt;
    if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}

/**
 * What a flow step run waits for when its child flow paused: a `PendingFlow` naming the child's run,
 * its waits, where the first of them is (`step › child step`), and the earliest of their deadlines.
 */
export function flowWait(
  spec: { step: { name: string }; nodeId: string; payload: unknown },
  waits: FlowChildWaits,
): NodeWait {
  const pending = structuredClone([...waits.pending]);
  const first = leafWaits(pending)[0];
  const path = [spec.step.name, ...(first?.path ?? [])].join(PATH_SEPARATOR);
  const timeoutAt = earliestOf(pending);
  const deadline = timeoutAt === undefined ? {} : { timeoutAt };
  const keep: PendingFlow = {
    kind: 'flow',
    step: spec.step.name,
    nodeId: spec.nodeId,
    flow: waits.flow,
    runId: waits.runId,
    pending,
    path,
    payload: spec.payload,
    ...deadline,
  };
  return { waitingFor: { kind: 'flow', flow: waits.flow, runId: waits.runId, path, ...deadline }, keep };
}
