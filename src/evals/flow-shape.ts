/**
 * What coverage reads of a flow's step shapes: the flow machine's own rules (which names a trigger
 * mentions, which failures are handled), and which steps choose an outcome.
 */
import type { StepShape } from '../machines/flow/step-shape.js';
import { namesIn as machineNamesIn, type Trigger } from '../machines/flow/triggers.js';

export { FAILED_OUTCOME as FAILED, handledSteps } from '../machines/flow/outcomes.js';
export type { StepShape } from '../machines/flow/step-shape.js';
export { failedStepOf } from '../machines/flow/triggers.js';

/** Every name (step, route label or `failed(step)`) a trigger mentions; none for a step without one. */
export function namesIn(trigger: Trigger | undefined, into: Set<string> = new Set()): Set<string> {
  return trigger === undefined ? into : machineNamesIn(trigger, into);
}

/** A router's or human's route labels; undefined for any other step. */
export function routeLabelsOf(step: StepShape): readonly string[] | undefined {
  return step.kind === 'router' || step.kind === 'human' ? step.routes : undefined;
}

/**
 * Whether a step chooses an outcome, as analysis sees it: a router, human or wait always does, and a
 * step with an `onTimeout` label or whose failure is handled.
 */
export function chooses(step: StepShape, handled: ReadonlySet<string>): boolean {
  const always = step.kind === 'router' || step.kind === 'human' || step.kind === 'wait';
  return always || step.onTimeout !== undefined || handled.has(step.name);
}
