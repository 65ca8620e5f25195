import type { StepShape } from './step-shape.js';
import { failed, failedStepOf, namesIn } from './triggers.js';

/** The outcome of a step that failed for good while some `failed(...)` trigger names it. */
export const FAILED_OUTCOME = 'failed';

/** The steps whose failure some trigger names (`failed(step)`): their failures are handled. */
export function handledSteps(steps: readonly Pick<StepShape, 'trigger'>[]): Set<string> {
  const handled = new Set<string>();
  for (const step of steps) {
    if (step.trigger === undefined) continue;
    for (const name of namesIn(step.trigger)) {
      const failedStep = failedStepOf(name);
      if (failedStep !== undefined) handled.add(failedStep);
    }
  }
  return handled;
}

/**
 * The outcomes a step chooses between, as analysis and forced routes see them; undefined for a step
 * with one outcome. A router's or human's are its route labels, a wait's its name; either gains its
 * `onTimeout` label; a step whose failure is handled gains `failed` (a plain step then has its name
 * and `failed`). A router, human or wait always chooses, even between one outcome.
 */
export function outcomesOf(step: StepShape, handled: ReadonlySet<string>): string[] | undefined {
  const outcomes: string[] = [];
  // A router, a human and a wait always choose (a wait: its name, or its timeout): forced routes can
  // then answer each without a store, as model-based tests do.
  const chooses = step.kind === 'router' || step.kind === 'human' || step.kind === 'wait';
  if ((step.kind === 'router' || step.kind === 'human') && step.routes !== undefined) {
    outcomes.push(...step.routes);
  } else if (step.kind === 'wait') {
    outcomes.push(step.name);
  }
  if (step.onTimeout !== undefined) outcomes.push(step.onTimeout);
  if (handled.has(step.name)) {
    if (outcomes.length === 0) outcomes.push(step.name);
    if (!outcomes.includes(FAILED_OUTCOME)) outcomes.push(FAILED_OUTCOME);
  }
  return outcomes.length > 1 || chooses ? outcomes : undefined;
}

/** What a settled step run emits for its outcome, and whether it counts as completed (it is in the trail). */
export interface StepEmission {
  emitted: string[];
  completed: boolean;
}

/** Whether a step run settling with `outcome` completed (only a handled failure did not). */
export function completes(step: StepShape, outcome: string | undefined): boolean {
  return outcome !== FAILED_OUTCOME || step.routes?.includes(outcome) === true;
}

/**
 * What step run of `step` emits when it settled with `outcome` (a route label, its `onTimeout` label,
 * `failed`, or its name): a failure the flow handles emits `failed(<step>)`; a timeout its label; a
 * router's or human's label follows its name; any other step emits its name.
 */
export function emissionOf(step: StepShape, outcome: string | undefined): StepEmission {
  if (!completes(step, outcome)) return { emitted: [failed(step.name)], completed: false };
  if (outcome !== undefined && outcome === step.onTimeout) return { emitted: [outcome], completed: true };
  if ((step.kind === 'router' || step.kind === 'human') && outcome !== undefined) {
    return { emitted: [step.name, outcome], completed: true };
  }
  return { emitted: [step.name], completed: true };
}

/**
 * The label a completed step run chose, from its output: a router's route, a human's `route`, or —
 * for a human or wait step that timed out — its `onTimeout` label; undefined for any other step.
 */
export function chosenLabel(step: StepShape, output: unknown, timedOut: boolean): string | undefined {
  if (timedOut) return step.onTimeout;
  if (step.kind === 'router') return String(output);
  if (step.kind === 'human') return String((output as { route?: unknown } | undefined)?.route);
  return undefined;
}
