import { FAILED_OUTCOME } from '../machines/flow/outcomes.js';
import { routesOf } from '../machines/flow/step-shape.js';
import { failedStepOf, namesIn, type Trigger } from '../machines/flow/triggers.js';
import type { StepDetails } from '../runtime/flow/definition.js';
import { mapTargetText } from './inner-box.js';
import type { ViewEdge, ViewMap, ViewNode } from './model.js';
import { subflowOf, VIEW_KINDS } from './subflow-runs.js';

/** What a flow view needs of a flow: its name and its steps (`flow.definition`). */
export interface FlowShape {
  readonly name: string;
  readonly definition: { readonly steps: readonly StepDetails[] };
}

/** An edge of a flow's picture and the name (step or route label) whose emission makes it taken. */
export interface FlowEdge {
  edge: ViewEdge;
  token: string;
}

/** A flow's picture before any run. */
export interface FlowGraph {
  nodes: ViewNode[];
  edges: FlowEdge[];
}

/** A trigger as its definition reads: `or(small, approved)`. */
export function triggerText(trigger: Trigger): string {
  return typeof trigger === 'string' ? trigger : `${trigger.kind}(${trigger.of.map(triggerText).join(', ')})`;
}

/** A human, wait or sleep step's details, as its definition gives them. */
function waitingParts(node: ViewNode, step: StepDetails): void {
  const deadline = {
    ...(step.deadlineMs === undefined ? {} : { deadlineMs: step.deadlineMs }),
    ...(step.onTimeout === undefined ? {} : { onTimeout: step.onTimeout }),
  };
  if (step.kind === 'human') {
    node.human = { routes: [...(step.routes ?? [])], ...deadline };
    if (typeof step.prompt === 'string') node.human.prompt = step.prompt;
  } else if (step.kind === 'wait') {
    node.wait = { event: step.event ?? '', ...deadline };
  } else if (step.kind === 'sleep') {
    node.sleep = step.sleep !== undefined && 'ms' in step.sleep ? { ms: step.sleep.ms } : {};
  }
}

function stepNode(step: StepDetails, handlers: ReadonlyMap<string, string[]>): ViewNode {
  const node: ViewNode = {
    id: step.name,
    label: step.name,
    kind: VIEW_KINDS[step.kind],
    status: 'not-run',
    runs: [],
  };
  const notes = [step.trigger === undefined ? 'Starts the flow' : `Runs on: ${triggerText(step.trigger)}`];
  const routes = routesOf(step);
  if (routes !== undefined) notes.push(`Routes: ${routes.join(', ')}`);
  const handledBy = handlers.get(step.name);
  if (handledBy !== undefined) notes.push(`On failure: ${handledBy.join(', ')}`);
  if (step.maxRuns !== undefined) notes.push(`Runs at most: ${step.maxRuns}`);
  node.notes = notes;
  waitingParts(node, step);
  composedParts(node, step);
  return node;
}

/** What a map step runs (a crew's or flow's name, or a function), how many at once; a flow step's child flow. */
function composedParts(node: ViewNode, step: StepDetails): void {
  if (step.map !== undefined) {
    const { runs, crew, flow, concurrency, allowFailures } = step.map;
    const map: ViewMap = { runs, concurrency };
    const target = runs === 'crew' ? crew : flow?.name;
    if (target !== undefined) map.target = target;
    if (allowFailures) map.allowFailures = true;
    node.map = map;
    node.notes?.push(`Each item runs: ${mapTargetText(map)}, ${concurrency} at once`);
  }
  if (step.subflow !== undefined) {
    node.subflow = subflowOf(step.subflow, new Map(), undefined);
    node.notes?.push(`Runs the flow: ${step.subflow.name}`);
  }
}

/** The steps whose trigger names `failed(<step>)`, by the failing step. */
function failureHandlers(steps: readonly StepDetails[]): Map<string, string[]> {
  const handlers = new Map<string, string[]>();
  for (const step of steps) {
    for (const name of step.trigger === undefined ? [] : namesIn(step.trigger)) {
      const failing = failedStepOf(name);
      if (failing !== undefined) handlers.set(failing, [...(handlers.get(failing) ?? []), step.name]);
    }
  }
  return handlers;
}

/** Where an edge for trigger name `name` starts, the label it carries, and what kind of edge it is. */
interface EdgeSource {
  from: string;
  label: string | undefined;
  kind: ViewEdge['kind'];
}

/** Reads a trigger name: a step, a route label, an `onTimeout` label, or `failed(<step>)`. */
function sourceReader(steps: readonly StepDetails[]): (name: string) => EdgeSource {
  const routeOwner = new Map<string, string>();
  const timeoutOwner = new Map<string, string>();
  for (const step of steps) {
    for (const label of routesOf(step) ?? []) routeOwner.set(label, step.name);
    if (step.onTimeout !== undefined) timeoutOwner.set(step.onTimeout, step.name);
  }
  return (name) => {
    const failing = failedStepOf(name);
    if (failing !== undefined) return { from: failing, label: FAILED_OUTCOME, kind: 'failure' };
    const timedOut = timeoutOwner.get(name);
    if (timedOut !== undefined) return { from: timedOut, label: name, kind: 'timeout' };
    const router = routeOwner.get(name);
    return router === undefined
      ? { from: name, label: undefined, kind: undefined }
      : { from: router, label: name, kind: undefined };
  };
}

/**
 * A flow's steps and an edge from each trigger to its listener, as `toMermaid()` draws them: a route
 * label (of a router or a human step) labels the edge from its step; an `onTimeout` label labels the
 * edge from its human or wait step (a timeout edge); `failed(<step>)` is an edge labelled `failed`
 * from that step (a failure edge); a trigger inside an `or`/`and` gate names the gate on its edge.
 */
export function flowGraph(flow: FlowShape): FlowGraph {
  const steps = flow.definition.steps;
  const sourceOf = sourceReader(steps);
  const edges: FlowEdge[] = [];
  const add = (trigger: Trigger, to: string, gate: string | undefined): void => {
    if (typeof trigger !== 'string') {
      for (const inner of trigger.of)
        add(inner, to, gate === undefined ? trigger.kind : `${gate} ${trigger.kind}`);
      return;
    }
    const { from, label, kind } = sourceOf(trigger);
    const parts = [label, gate].filter((p) => p !== undefined);
    const edge: ViewEdge = { from, to, taken: false };
    if (parts.length > 0) edge.label = parts.join(' · ');
    if (kind !== undefined) edge.kind = kind;
    edges.push({ edge, token: trigger });
  };
  for (const step of steps) if (step.trigger !== undefined) add(step.trigger, step.name, undefined);
  const handlers = failureHandlers(steps);
  return { nodes: steps.map((step) => stepNode(step, handlers)), edges };
}
