import { CycleError } from '../../errors.js';
import type { ChildFlowShape, StepShape } from '../../machines/flow/step-shape.js';
import { PATH_SEPARATOR } from '../../machines/flow/waits.js';
import type { AbstractFlow } from './abstraction.js';

/** A step that runs a child flow: a flow step (one child run per run of it), or a map step whose items run one. */
export interface ChildFlowStep {
  step: StepShape;
  child: ChildFlowShape;
  /** `flow`: the child is composed into the parent's paths; `map`: the step stays one node. */
  kind: 'flow' | 'map';
}

/** The steps of `steps` that run a child flow, in definition order (a child's steps are read here, lazily). */
export function childFlowsOf(steps: readonly StepShape[]): ChildFlowStep[] {
  const found: ChildFlowStep[] = [];
  for (const step of steps) {
    if (step.kind === 'flow' && step.subflow !== undefined) {
      found.push({ step, child: step.subflow, kind: 'flow' });
    } else if (step.kind === 'map' && step.map?.flow !== undefined) {
      found.push({ step, child: step.map.flow, kind: 'map' });
    }
  }
  return found;
}

/** `name` inside the step (path) `at`: `review › grade`. */
export function within(at: string, name: string): string {
  return `${at}${PATH_SEPARATOR}${name}`;
}

/**
 * Whether two flows are the same flow: a flow's steps are the same objects however often its
 * definition is read, so its first step identifies it (a flow without steps: its name).
 */
function sameFlow(a: AbstractFlow, b: AbstractFlow): boolean {
  const first = a.steps[0];
  return first === undefined ? b.steps.length === 0 && a.name === b.name : first === b.steps[0];
}

/**
 * The flows being analysed, outermost first, each with the step that runs the next: what refuses a
 * flow that contains itself through its children (A runs B runs A) before analysis would recurse
 * forever.
 */
export class FlowChain {
  readonly #links: readonly { flow: AbstractFlow; step: string }[];
  readonly #flow: AbstractFlow;

  constructor(flow: AbstractFlow, links: readonly { flow: AbstractFlow; step: string }[] = []) {
    this.#flow = flow;
    this.#links = links;
  }

  /** The chain one level down: `child`, run by step `step` of this chain's flow (`cycle` if it is already on it). */
  enter(step: string, child: AbstractFlow): FlowChain {
    const links = [...this.#links, { flow: this.#flow, step }];
    if (links.some((link) => sameFlow(link.flow, child))) {
      const from = links.findIndex((link) => sameFlow(link.flow, child));
      const chain = links.slice(from);
      throw new CycleError(
        chain.map((link) => link.flow.name),
        chain.map((link) => link.step),
      );
    }
    return new FlowChain(child, links);
  }
}
