import { InternalError } from '../../errors.js';
import type { FlowDefinition } from './definition.js';
import type { FlowOutput } from './flow-output.js';
import type { StepScope } from './step-context.js';

/**
 * A flow that runs as the child of another run's step (a `Flow`: a flow step's child, a map step's
 * item): what the parent reads of it.
 */
export interface ComposableFlow {
  readonly name: string;
  readonly definition: FlowDefinition<unknown>;
}

/** One child flow run a parent step asks for: which run, with which inputs. */
export interface ChildFlowRequest {
  /** The parent step run. */
  scope: StepScope;
  /** The child run's id (`<parent id>/<node id>`, a map item's `<parent id>/<node id>/<itemId>`). */
  runId: string;
  /** The child's inputs when it starts (a child run that exists goes on with its own). */
  inputs: Record<string, unknown> | undefined;
}

/**
 * Runs `child` as the child of the step run `request.scope` under id `request.runId`, in the parent's
 * store: a run that exists goes on (a completed one gives its stored result and runs nothing, a paused
 * one goes on with the answers the parent was resumed with for it); a new one starts under the step
 * run's actor, its events relayed into the parent's. Resolves with its output (also a failed one's);
 * rejects with `FlowChildWaits` when it paused.
 */
export async function runChildFlow(
  _child: ComposableFlow,
  _request: ChildFlowRequest,
): Promise<FlowOutput<unknown>> {
  throw new InternalError('runChildFlow', 'child flow runs are not built yet');
}
