import { CarriedFailure } from '../../actors/failure.js';
import type { Failure } from '../../types.js';
import { type ComposableFlow, runChildFlow } from './child-flow.js';
import { FlowChildWaits } from './child-waits.js';
import { type FlowOutput, firstFailureOf } from './flow-output.js';
import { relaysChildEvent } from './map-crew-item.js';
import type { MapItem } from './map-items.js';
import type { StepScope } from './step-context.js';

/**
 * One attempt of a flow item: the flow's run `item.childId` under the step run's actor, on the run's
 * clock and `signal`, in the parent run's store (`runChildFlow`: a stored run goes on, so a retry of a
 * failed item runs only its failed steps, and a completed one nothing). Its output is the child's
 * `output`. A child run that failed fails the attempt with its first failure not handled; a child that
 * paused — a crew of one of its steps waiting for a human, which the builder cannot see — fails it:
 * a map's items run to their end.
 */
export async function runFlowItem(
  flow: ComposableFlow,
  item: MapItem,
  inputs: Record<string, unknown>,
  scope: StepScope,
  signal: AbortSignal,
): Promise<unknown> {
  let out: FlowOutput<unknown>;
  try {
    out = await runChildFlow(flow, {
      scope: { ...scope, signal },
      runId: item.childId,
      inputs,
      relays: relaysChildEvent,
    });
  } catch (error) {
    if (!(error instanceof FlowChildWaits)) throw error;
    const message = `Flow "${flow.name}" run ${item.childId} paused for a human; a map step's items cannot pause`;
    throw new CarriedFailure({ message, code: 'invalid_option', retryable: false });
  }
  if (out.status === 'failed') throw new CarriedFailure(flowFailure(flow.name, item.childId, out));
  return out.output;
}

/** A failed flow run as one failure: its first failure not handled, named. */
function flowFailure(flow: string, childId: string, out: FlowOutput<unknown>): Failure {
  const [step, first] = firstFailureOf(out);
  const at = step === undefined ? '' : ` at step "${step}"`;
  return {
    message: `Flow "${flow}" run ${childId} failed${at}: ${first?.message ?? 'no step completed'}`,
    retryable: first?.retryable ?? false,
    ...(first?.code === undefined ? {} : { code: first.code }),
  };
}
