import { ForcedFailureError, UnknownRouteError, UnknownRouterError } from '../../errors.js';
import { FAILED_OUTCOME, handledSteps, outcomesOf } from '../../machines/flow/outcomes.js';
import type { StepShape } from '../../machines/flow/step-shape.js';
import { PATH_SEPARATOR } from '../../machines/flow/waits.js';
import type { StepDefinition } from './definition.js';

/** Route labels forced per router: one for every run, or a list for its successive runs. */
export type ForcedRoutes = Readonly<Record<string, string | readonly string[]>>;

/**
 * Checks the steps named in `routes` choose an outcome (`unknown_router`): routers, human and wait
 * steps, and steps whose failure a `failed(...)` trigger handles.
 */
export function checkForcedRoutes(
  definition: { name: string; steps: readonly StepShape[] },
  routes: ForcedRoutes | undefined,
): ReadonlyMap<string, string | readonly string[]> {
  const forced = new Map(Object.entries(routes ?? {}));
  for (const name of forced.keys()) checkForcedKey(definition, name, name);
  return forced;
}

/**
 * Checks one key of `routes`: a step of `definition` that chooses an outcome, or a path
 * (`'<flow step> › <child step>'`, nested deeper the same way) into a flow step's child flow to one
 * (`unknown_router` naming the key as given, `key`).
 */
function checkForcedKey(
  definition: { name: string; steps: readonly StepShape[] },
  name: string,
  key: string,
): void {
  const at = name.indexOf(PATH_SEPARATOR);
  if (at >= 0) {
    const step = definition.steps.find((s) => s.name === name.slice(0, at));
    const child = step?.kind === 'flow' ? step.subflow : undefined;
    if (child === undefined) {
      const flows = definition.steps
        .filter((s) => s.kind === 'flow')
        .map((s) => `${s.name}${PATH_SEPARATOR}…`);
      throw new UnknownRouterError(definition.name, key, flows);
    }
    checkForcedKey(child, name.slice(at + PATH_SEPARATOR.length), key);
    return;
  }
  const handled = handledSteps(definition.steps);
  const routers = definition.steps.filter((s) => outcomesOf(s, handled) !== undefined).map((s) => s.name);
  if (!routers.includes(name)) throw new UnknownRouterError(definition.name, key, routers);
}

/** The outcome forced for run `run` of step `step`, if one is. */
export function forcedOutcome(
  forced: ReadonlyMap<string, string | readonly string[]>,
  step: string,
  run: number,
): string | undefined {
  const choice = forced.get(step);
  return typeof choice === 'string' ? choice : choice?.[run - 1];
}

/**
 * A step whose run `run` has a forced outcome, as it runs: `failed` (for a step whose failure is
 * handled) fails it without calling it (`forced_failure`); a router returns its forced label instead
 * of deciding; any other step runs as defined.
 */
export function forcedStep<S>(
  step: StepDefinition<S>,
  forced: ReadonlyMap<string, string | readonly string[]>,
  run: number,
): StepDefinition<S> {
  if (!forced.has(step.name)) return step;
  const label = forcedOutcome(forced, step.name, run);
  if (label === FAILED_OUTCOME && step.routes?.includes(label) !== true) {
    return {
      ...step,
      run: () => {
        throw new ForcedFailureError(step.name);
      },
    };
  }
  if (step.kind !== 'router') return step;
  return {
    ...step,
    run: () => {
      if (label === undefined)
        throw new UnknownRouteError(step.name, `(no forced label for run ${run})`, step.routes ?? []);
      return label;
    },
  };
}
