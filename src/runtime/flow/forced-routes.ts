import { UnknownRouteError, UnknownRouterError } from '../../errors.js';
import { routesOf, type StepDefinition } from './definition.js';

/** Route labels forced per router: one for every run, or a list for its successive runs. */
export type ForcedRoutes = Readonly<Record<string, string | readonly string[]>>;

/** Checks the routers named in `routes` exist (`unknown_router`). */
export function checkForcedRoutes(
  definition: { name: string; steps: readonly { name: string; kind: string }[] },
  routes: ForcedRoutes | undefined,
): ReadonlyMap<string, string | readonly string[]> {
  const forced = new Map(Object.entries(routes ?? {}));
  const routers = definition.steps.filter((s) => routesOf(s) !== undefined).map((s) => s.name);
  for (const name of forced.keys()) {
    if (!routers.includes(name)) throw new UnknownRouterError(definition.name, name, routers);
  }
  return forced;
}

/** A router whose body returns the forced label of its `run`-th run instead of deciding. */
export function forcedRouter<S>(
  step: StepDefinition<S>,
  forced: ReadonlyMap<string, string | readonly string[]>,
  run: number,
) {
  const choice = forced.get(step.name);
  const label = typeof choice === 'string' ? choice : choice?.[run - 1];
  return {
    ...step,
    run: () => {
      if (label === undefined)
        throw new UnknownRouteError(step.name, `(no forced label for run ${run})`, step.routes ?? []);
      return label;
    },
  };
}
