import { Crew } from '../runtime/crew/crew.js';
import type { Flow } from '../runtime/flow/flow.js';
import { crewCoverage } from './coverage-crew.js';
import { flowCoverage } from './coverage-flow.js';
import type { EvalCoverage, RunPath } from './types.js';

/**
 * What `paths` (the runs' paths, from `flowRunPath` or `crewRunPath`) exercised of `target`, against
 * its proof: a flow's paths (from `analyze()`; a path is covered when some run's trail and routes
 * equal it), declared routes (`router=label`, a child's by path), failure handlers, timeouts
 * (`step=label`), steps and edges; a crew's tasks and their order (see `crewCoverage`).
 *
 * @example
 * coverageOf(saga, runs.map((out) => flowRunPath(saga, out))).timeouts.uncovered; // ['delivery=lost']
 */
export function coverageOf<S>(target: Crew | Flow<S>, paths: readonly RunPath[]): EvalCoverage {
  return target instanceof Crew ? crewCoverage(target, paths) : flowCoverage(target, paths);
}
