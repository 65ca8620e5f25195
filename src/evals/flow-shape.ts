import type { Flow } from '../runtime/flow/flow.js';

/** A flow step's shape, as analysis reads it (a child flow's steps are of this shape too). */
export type StepShape = NonNullable<Flow<unknown>['definition']['steps'][number]['subflow']>['steps'][number];

/** A step's trigger: a name, or a gate over other triggers. */
type Trigger = NonNullable<StepShape['trigger']>;

/** The outcome a handled failure chooses, as `FlowPath.routes` names it. */
export const FAILED = 'failed';

/** The step a `failed(step)` trigger name is about; undefined for any other name. */
export function failedStepOf(name: string): string | undefined {
  return name.startsWith('failed(') && name.endsWith(')') ? name.slice('failed('.length, -1) : undefined;
}

/** Every name (step, route label or `failed(step)`) a trigger mentions. */
export function namesIn(trigger: Trigger | undefined, into: Set<string> = new Set()): Set<string> {
  if (trigger === undefined) return into;
  if (typeof trigger === 'string') into.add(trigger);
  else for (const inner of trigger.of) namesIn(inner, into);
  return into;
}

/** The steps whose failure some `failed(step)` trigger handles. */
export function handledSteps(steps: readonly StepShape[]): Set<string> {
  const handled = new Set<string>();
  for (const step of steps) {
    for (const name of namesIn(step.trigger)) {
      const failedStep = failedStepOf(name);
      if (failedStep !== undefined) handled.add(failedStep);
    }
  }
  return handled;
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
