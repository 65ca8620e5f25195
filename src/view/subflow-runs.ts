import type { ChildFlowShape, StepKind } from '../machines/flow/step-shape.js';
import type { StatecrewEvent } from '../types.js';
import type { ViewNodeKind, ViewStatus, ViewSubflow, ViewSubflowStep } from './model.js';

/** A step of a child flow run as its relayed events tell it: its latest status and step run. */
export interface ChildStep {
  status: ViewStatus;
  nodeId: string;
}

/** The steps of each child flow run, by child run id, in the order first seen. */
export type ChildRuns = Map<string, Map<string, ChildStep>>;

/** The view's kind of a step's kind. */
export const VIEW_KINDS: Readonly<Record<StepKind, ViewNodeKind>> = {
  start: 'step',
  listen: 'step',
  router: 'router',
  human: 'human',
  wait: 'wait',
  map: 'map',
  flow: 'flow',
  sleep: 'sleep',
};

const STEP_STATUS: Readonly<Record<string, ViewStatus>> = {
  started: 'running',
  retrying: 'running',
  completed: 'completed',
  failed: 'failed',
};

/**
 * The steps of the child flow runs inside flow run `flowId`, from their events relayed into its own
 * (`flow.step` and `flow.paused` events with another run id): what a flow step's nested box shows.
 */
export function childRunSteps(events: readonly StatecrewEvent[], flowId: string | undefined): ChildRuns {
  const runs: ChildRuns = new Map();
  const stepOf = (runId: string, name: string, nodeId: string) => {
    let steps = runs.get(runId);
    if (steps === undefined) {
      steps = new Map();
      runs.set(runId, steps);
    }
    let step = steps.get(name);
    if (step === undefined) {
      step = { status: 'running', nodeId };
      steps.set(name, step);
    }
    return step;
  };
  for (const event of events) {
    if (event.runId === flowId || event.step === undefined) continue;
    if (event.type === 'flow.step') {
      const step = stepOf(event.runId, event.name, event.nodeId);
      step.nodeId = event.nodeId;
      step.status = STEP_STATUS[event.status] ?? 'running';
    } else if (event.type === 'flow.paused') {
      for (const waiting of event.waitingFor ?? [])
        stepOf(event.runId, waiting.step, waiting.nodeId).status = 'paused';
    }
  }
  return runs;
}

/** Child flows are drawn this deep at most (a picture, not a proof: deeper boxes say no more). */
const MAX_DEPTH = 6;

/** Where a child run stands: what its steps' statuses default to. */
export interface ChildRunPlace {
  /** The child run's id, when the parent's step ran. */
  runId: string | undefined;
  /** Whether the parent run is over: a step its child never reached will not run. */
  finished: boolean;
}

/**
 * A flow step's child flow as its box draws it: the child's steps in definition order, recursively,
 * each with its status from `runs` (the child run `place.runId`'s relayed events), else `not-run`
 * (no run, or a finished one) or `waiting`.
 */
export function subflowOf(
  shape: ChildFlowShape,
  runs: ChildRuns,
  place: ChildRunPlace | undefined,
  depth = 0,
): ViewSubflow {
  const seen = place?.runId === undefined ? undefined : runs.get(place.runId);
  const steps = depth >= MAX_DEPTH ? [] : shape.steps;
  const subflow: ViewSubflow = {
    flow: shape.name,
    steps: steps.map((s): ViewSubflowStep => {
      const run = seen?.get(s.name);
      const unreached = place === undefined || place.finished || place.runId === undefined;
      const step: ViewSubflowStep = {
        name: s.name,
        kind: VIEW_KINDS[s.kind],
        status: run?.status ?? (unreached ? 'not-run' : 'waiting'),
      };
      if (s.subflow !== undefined) {
        const inner =
          place === undefined
            ? undefined
            : {
                runId: run === undefined ? undefined : `${place.runId}/${run.nodeId}`,
                finished: place.finished,
              };
        step.subflow = subflowOf(s.subflow, runs, inner, depth + 1);
      }
      return step;
    }),
  };
  if (place?.runId !== undefined) subflow.runId = place.runId;
  return subflow;
}

/** A child flow run's box without its definition: the steps its events told, in the order first seen. */
export function seenSubflow(name: string, runs: ChildRuns, runId: string): ViewSubflow {
  const steps = [...(runs.get(runId) ?? new Map<string, ChildStep>())].map(
    ([step, { status }]): ViewSubflowStep => ({ name: step, kind: 'step', status }),
  );
  return { flow: name, steps, runId };
}
