import { within } from '../runtime/flow/composition.js';
import { chose } from './covered.js';
import { failedStepOf, namesIn, type StepShape } from './flow-shape.js';
import type { EvalCoverage, RunPath } from './types.js';

type Edge = Omit<EvalCoverage['edges'][number], 'taken'>;

/** The steps that emit `name`: a step by its name, routers by their label, waiting steps by their timeout label. */
function sourcesOf(name: string, steps: readonly StepShape[]): Edge[] {
  const failedStep = failedStepOf(name);
  if (failedStep !== undefined) return [{ from: failedStep, to: '', label: 'failed' }];
  const sources: Edge[] = steps.filter((s) => s.name === name).map((s) => ({ from: s.name, to: '' }));
  for (const step of steps) {
    const routes = step.kind === 'router' || step.kind === 'human' ? (step.routes ?? []) : [];
    if (routes.includes(name) || step.onTimeout === name)
      sources.push({ from: step.name, to: '', label: name });
  }
  return sources;
}

/**
 * Every edge of a flow's definition: from the step whose emission triggers a step to it, labelled
 * with the route label, the timeout label or `failed`; a child flow's edges by their path.
 */
export function flowEdges(steps: readonly StepShape[]): Edge[] {
  const edges: Edge[] = [];
  for (const step of steps) {
    for (const name of namesIn(step.trigger)) {
      for (const source of sourcesOf(name, steps)) edges.push({ ...source, to: step.name });
    }
    if (step.kind !== 'flow' || step.subflow === undefined) continue;
    for (const inner of flowEdges(step.subflow.steps)) {
      const label = inner.label === undefined ? {} : { label: inner.label };
      edges.push({ from: within(step.name, inner.from), to: within(step.name, inner.to), ...label });
    }
  }
  return edges;
}

/**
 * Whether a run went along `edge`: its target ran (or waits there, paused), and its source
 * completed, chose its label, or failed.
 */
function wentAlong(edge: Edge, run: RunPath): boolean {
  const ran =
    run.trail.includes(edge.to) || run.failed.includes(edge.to) || (run.waiting ?? []).includes(edge.to);
  if (!ran) return false;
  if (edge.label === 'failed' && !run.trail.includes(edge.from)) return run.failed.includes(edge.from);
  if (edge.label === undefined) return run.trail.includes(edge.from);
  return chose(run.routes[edge.from], edge.label);
}

/** The flow's edges, each with how many runs went along it. */
export function takenEdges(steps: readonly StepShape[], runs: readonly RunPath[]): EvalCoverage['edges'] {
  return flowEdges(steps).map((edge) => ({
    ...edge,
    taken: runs.filter((run) => wentAlong(edge, run)).length,
  }));
}
