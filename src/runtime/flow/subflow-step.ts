import { InternalError, InvalidOptionError, SubflowFailedError } from '../../errors.js';
import { type ComposableFlow, runChildFlow } from './child-flow.js';
import type { StepContext } from './definition.js';
import { type FlowOutput, firstFailureOf } from './flow-output.js';
import { stepScopeOf } from './step-context.js';

/**
 * The body of a flow step: runs `child` as the step run's child flow (`<run id>/<node id>`) with
 * `inputs(ctx)` (a plain object, else `invalid_option`); resolves with the child's output. A failed
 * child fails the step with `subflow_failed` (its failed step and code); a paused one makes the step
 * wait (`FlowChildWaits`).
 */
export async function runSubflowStep(
  context: StepContext<unknown>,
  child: ComposableFlow,
  inputs: ((context: StepContext<unknown>) => Record<string, unknown>) | undefined,
): Promise<unknown> {
  const scope = stepScopeOf(context);
  if (scope === undefined) throw new InternalError('runSubflowStep', 'a flow step runs inside a flow run');
  const given = inputs?.(context);
  if (given !== undefined && !isPlainObject(given)) {
    const where = `Flow "${scope.flow}" step "${scope.step}"`;
    throw new InvalidOptionError(where, 'inputs', 'a function returning a plain object', given);
  }
  const runId = `${scope.runId}/${scope.nodeId}`;
  const out = await runChildFlow(child, { scope, runId, inputs: given });
  if (out.status === 'failed') throw failedChild(scope.step, child.name, out);
  return out.output;
}

/** `subflow_failed` for a child run that failed: its failed step (the first not handled) and its code. */
function failedChild(step: string, flow: string, out: FlowOutput<unknown>): SubflowFailedError {
  const [failedStep, failure] = firstFailureOf(out);
  return new SubflowFailedError(
    step,
    { flow, runId: out.id },
    { step: failedStep, message: failure?.message ?? 'failed', code: failure?.code },
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
