import type { StepShape } from '../../machines/flow/step-shape.js';
import { routesOf } from '../../machines/flow/step-shape.js';
import { failedStepOf, type Trigger } from '../../machines/flow/triggers.js';
import { createPlainMachine, type PlainMachine } from '../engine/plain-machine.js';
import { type AbstractFlow, type AbstractGraph, buildAbstractGraph, roundOf } from './abstraction.js';
import { validateTriggers } from './validate.js';

/** The event name of a round's route choice: `grade=approve`, several joined by `&`; `NEXT` when no router runs. */
function choiceName(labels: Readonly<Record<string, string>>): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? 'NEXT' : entries.map(([router, label]) => `${router}=${label}`).join('&');
}

/** The states of the abstract graph, named for Stately: `1: draft`, `2: grade`, …, then `completed` / `failed`. */
function stateNames(graph: AbstractGraph): Map<string, string> {
  const names = new Map<string, string>();
  let i = 0;
  for (const [key, node] of graph.nodes) {
    if (node.snapshot.status === 'done')
      names.set(key, node.snapshot.value === 'failed' ? 'failed' : 'completed');
    else {
      i += 1;
      names.set(key, `${i}: ${roundOf(node.snapshot).join(', ')}`);
    }
  }
  return names;
}

/**
 * The flow's control flow as a plain XState machine, with no functions in it (it round-trips through
 * JSON and opens in Stately): one state per abstract state between rounds, named after the steps it
 * runs; one event per choice of route labels; `completed` and `failed` as final states.
 */
export function flowToMachine(flow: AbstractFlow, stateLimit = 100_000): PlainMachine {
  validateTriggers(flow);
  const graph = buildAbstractGraph(flow, stateLimit);
  const names = stateNames(graph);
  const states: Record<string, { type?: 'final'; description?: string; on?: Record<string, string> }> = {};
  for (const [key, node] of graph.nodes) {
    const name = names.get(key) as string;
    if (node.snapshot.status === 'done') {
      states[name] = { type: 'final' };
      continue;
    }
    const on: Record<string, string> = {};
    for (const edge of node.edges) on[choiceName(edge.event.labels)] = names.get(edge.to) as string;
    states[name] = { description: `Runs ${roundOf(node.snapshot).join(', ')}`, on };
  }
  return createPlainMachine({ id: flow.name, initial: names.get(graph.initial) as string, states });
}

const mermaidId = (i: number) => `s${i}`;
const quote = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** A step's Mermaid node: routers and human steps as diamonds, waits as hexagons, sleeps as parallelograms. */
function mermaidNode(id: string, step: StepShape): string {
  const name = quote(step.name);
  if (routesOf(step) !== undefined) return `  ${id}{${name}}`;
  if (step.kind === 'wait') return `  ${id}{{${name}}}`;
  if (step.kind === 'sleep') return `  ${id}[/${name}/]`;
  return `  ${id}[${name}]`;
}

/**
 * A Mermaid flowchart of the flow's definition: steps (routers as diamonds, waits as hexagons, sleeps
 * as parallelograms), an edge from each trigger to its listener, route and timeout labels on the edges
 * that leave their step, a dotted `failed` edge from a step to the handler of its failure, `and`/`or`
 * gates as circles.
 */
export function flowToMermaid(flow: { steps: readonly StepShape[] }): string {
  const ids = new Map(flow.steps.map((s, i) => [s.name, mermaidId(i)]));
  const routerOf = new Map<string, string>();
  for (const step of flow.steps) {
    for (const label of step.routes ?? []) routerOf.set(label, step.name);
    if (step.onTimeout !== undefined) routerOf.set(step.onTimeout, step.name);
  }
  const lines = ['flowchart TD'];
  for (const step of flow.steps) lines.push(mermaidNode(ids.get(step.name) as string, step));
  let gates = 0;
  const source = (trigger: Trigger, target: string): void => {
    if (typeof trigger === 'string') {
      const router = routerOf.get(trigger);
      const failedStep = failedStepOf(trigger);
      if (router !== undefined) lines.push(`  ${ids.get(router)} -- ${quote(trigger)} --> ${target}`);
      else if (failedStep !== undefined) lines.push(`  ${ids.get(failedStep)} -. "failed" .-> ${target}`);
      else lines.push(`  ${ids.get(trigger)} --> ${target}`);
      return;
    }
    gates += 1;
    const gate = `g${gates}`;
    lines.push(`  ${gate}((${trigger.kind}))`, `  ${gate} --> ${target}`);
    for (const inner of trigger.of) source(inner, gate);
  };
  for (const step of flow.steps)
    if (step.trigger !== undefined) source(step.trigger, ids.get(step.name) as string);
  return lines.join('\n');
}
