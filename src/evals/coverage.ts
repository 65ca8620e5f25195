import type { Crew } from '../runtime/crew/crew.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { EvalCoverage, RunPath } from './types.js';

/**
 * What `paths` (the runs' paths) exercised of `target`, against its proof: a flow's paths, routes,
 * failure handlers, timeouts, steps and edges from `analyze()`; a crew's tasks and their order.
 */
export function coverageOf(target: Crew | Flow<object>, paths: readonly RunPath[]): EvalCoverage {
  throw new Error(`coverageOf is not built yet (${String(target.name)}, ${paths.length})`);
}
