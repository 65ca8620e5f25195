import type { PendingStep } from '../machines/flow/waits.js';
import type { StepDetails } from '../runtime/flow/definition.js';
import { type FlowViewSource, flowRunFacts } from './flow-runs.js';
import { toFlowView } from './flow-view.js';
import type { RunView } from './model.js';
import { storedStepKinds } from './stored-kinds.js';

/**
 * A stored flow run drawn without its definition: a node per step the run reached (in the order it
 * reached them), each with its runs, and no edges — which step a step's trigger named is the
 * definition's to say, and the order steps ran in (the timeline) does not tell it. What the run
 * kept (its events, or its snapshot or execution document) gives the kinds, statuses, details,
 * timeline and totals, as it does for a view drawn with the definition. Crew runs: `stored-crew.ts`.
 */

/** A step of the picture: its kind and what it waits for, as the run tells them; no trigger, no body. */
function storedStep(
  name: string,
  index: number,
  kind: StepDetails['kind'] | undefined,
  pending: PendingStep | undefined,
): StepDetails {
  const step: StepDetails = {
    name,
    index,
    kind: kind ?? 'listen',
    trigger: undefined,
    routes: pending?.kind === 'human' ? [...pending.routes] : kind === 'human' ? [] : undefined,
    maxRuns: undefined,
    retries: 0,
    retryDelayMs: 0,
    timeoutMs: undefined,
  };
  if (pending?.kind === 'human') step.prompt = pending.prompt;
  if (pending?.kind === 'event') step.event = pending.event;
  return step;
}

/**
 * A stored flow run of flow `name`, drawn from what it kept: its events, or its snapshot (or
 * `flow.getRun(id)`). A step it paused for is drawn as a human or wait step, a router that chose a
 * route as a router, a step that slept as a sleep step; there are no edges.
 */
export function storedFlowView(name: string, source: FlowViewSource): RunView {
  const facts = flowRunFacts(source);
  const kinds = storedStepKinds(source);
  const names = [
    ...new Set([...facts.runs.keys(), ...facts.waits.keys(), ...facts.pending.map((p) => p.step)]),
  ];
  const steps = names.map((step, index) => {
    const pending = facts.pending.find((p) => p.step === step);
    return storedStep(step, index, kinds.get(step), pending);
  });
  const view = toFlowView({ name, definition: { steps } }, source);
  // The notes of a step drawn without its definition would say what no definition said.
  for (const node of view.nodes) delete node.notes;
  return view;
}
