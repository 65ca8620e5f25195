import type { StepShape } from '../runtime/flow/definition.js';
import { routesOf } from '../runtime/flow/definition.js';
import type { Trigger } from '../runtime/flow/triggers.js';
import type { ViewEdge, ViewNode, ViewNodeKind } from './model.js';

/** What a flow view needs of a flow: its name and its steps (`flow.definition`). */
export interface FlowShape {
  readonly name: string;
  readonly definition: { readonly steps: readonly StepShape[] };
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

const kindOf = (step: StepShape): ViewNodeKind =>
  step.kind === 'human' ? 'human' : step.kind === 'router' ? 'router' : 'step';

function stepNode(step: StepShape): ViewNode {
  const node: ViewNode = { id: step.name, label: step.name, kind: kindOf(step), status: 'not-run', runs: [] };
  const notes = [step.trigger === undefined ? 'Starts the flow' : `Runs on: ${triggerText(step.trigger)}`];
  const routes = routesOf(step);
  if (routes !== undefined) notes.push(`Routes: ${routes.join(', ')}`);
  if (step.maxRuns !== undefined) notes.push(`Runs at most: ${step.maxRuns}`);
  node.notes = notes;
  if (step.kind === 'human') {
    node.human = { routes: [...(step.routes ?? [])] };
    if (typeof step.prompt === 'string') node.human.prompt = step.prompt;
  }
  return node;
}

/**
 * A flow's steps and an edge from each trigger to its listener, as `toMermaid()` draws them: a route
 * label (of a router or a human step) labels the edge from its step; a trigger inside an `or`/`and`
 * gate names the gate on its edge.
 */
export function flowGraph(flow: FlowShape): FlowGraph {
  const steps = flow.definition.steps;
  const ownerOf = new Map<string, string>();
  for (const step of steps) for (const label of routesOf(step) ?? []) ownerOf.set(label, step.name);
  const edges: FlowEdge[] = [];
  const add = (trigger: Trigger, to: string, gate: string | undefined): void => {
    if (typeof trigger !== 'string') {
      for (const inner of trigger.of)
        add(inner, to, gate === undefined ? trigger.kind : `${gate} ${trigger.kind}`);
      return;
    }
    const router = ownerOf.get(trigger);
    const from = router ?? trigger;
    const parts = [router === undefined ? undefined : trigger, gate].filter((p) => p !== undefined);
    const edge: ViewEdge = { from, to, taken: false };
    if (parts.length > 0) edge.label = parts.join(' · ');
    edges.push({ edge, token: trigger });
  };
  for (const step of steps) if (step.trigger !== undefined) add(step.trigger, step.name, undefined);
  return { nodes: steps.map(stepNode), edges };
}
