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

const quote = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** What a map step's box says it runs: `map · crew summarize ×4`. */
function mapText(map: NonNullable<StepShape['map']>): string {
  const target = map.runs === 'crew' ? map.crew : map.runs === 'flow' ? map.flow?.name : undefined;
  return `map · ${map.runs}${target === undefined ? '' : ` ${target}`} ×${map.concurrency}`;
}

/**
 * A step's Mermaid node: routers and human steps as diamonds, waits as hexagons, sleeps as
 * parallelograms, map steps as subroutines saying what their items run; a flow step is a subgraph
 * holding its child flow's steps, named by path ids (`s2_s0`) so they never clash with the parent's.
 */
function mermaidNode(id: string, step: StepShape, indent: string, depth: number): string[] {
  const name = quote(step.name);
  if (routesOf(step) !== undefined) return [`${indent}${id}{${name}}`];
  if (step.kind === 'wait') return [`${indent}${id}{{${name}}}`];
  if (step.kind === 'sleep') return [`${indent}${id}[/${name}/]`];
  if (step.map !== undefined) return [`${indent}${id}[[${quote(`${step.name}<br/>${mapText(step.map)}`)}]]`];
  if (step.subflow !== undefined && depth < MAX_DEPTH) {
    const title = quote(`${step.name} · flow ${step.subflow.name}`);
    return [
      `${indent}subgraph ${id} [${title}]`,
      ...flowLines(step.subflow.steps, `${id}_`, `${indent}  `, depth + 1),
      `${indent}end`,
    ];
  }
  return [`${indent}${id}[${name}]`];
}

/** Child flows are drawn this deep at most. */
const MAX_DEPTH = 6;

/** The Mermaid lines of a flow's steps and edges, its ids starting with `prefix`, each line with `indent`. */
function flowLines(steps: readonly StepShape[], prefix: string, indent: string, depth: number): string[] {
  const ids = new Map(steps.map((s, i) => [s.name, `${prefix}s${i}`]));
  const routerOf = new Map<string, string>();
  for (const step of steps) {
    for (const label of step.routes ?? []) routerOf.set(label, step.name);
    if (step.onTimeout !== undefined) routerOf.set(step.onTimeout, step.name);
  }
  const lines = steps.flatMap((step) => mermaidNode(ids.get(step.name) as string, step, indent, depth));
  let gates = 0;
  const source = (trigger: Trigger, target: string): void => {
    if (typeof trigger === 'string') {
      const router = routerOf.get(trigger);
      const failedStep = failedStepOf(trigger);
      if (router !== undefined) lines.push(`${indent}${ids.get(router)} -- ${quote(trigger)} --> ${target}`);
      else if (failedStep !== undefined)
        lines.push(`${indent}${ids.get(failedStep)} -. "failed" .-> ${target}`);
      else lines.push(`${indent}${ids.get(trigger)} --> ${target}`);
      return;
    }
    gates += 1;
    const gate = `${prefix}g${gates}`;
    lines.push(`${indent}${gate}((${trigger.kind}))`, `${indent}${gate} --> ${target}`);
    for (const inner of trigger.of) source(inner, gate);
  };
  for (const step of steps)
    if (step.trigger !== undefined) source(step.trigger, ids.get(step.name) as string);
  return lines;
}

/**
 * A Mermaid flowchart of the flow's definition: steps (routers as diamonds, waits as hexagons, sleeps
 * as parallelograms, map steps as subroutines saying what each item runs and how many at once, a
 * flow step as a subgraph holding its child flow's steps, recursively), an edge from each trigger to
 * its listener, route and timeout labels on the edges that leave their step, a dotted `failed` edge
 * from a step to the handler of its failure, `and`/`or` gates as circles.
 */
export function flowToMermaid(flow: { steps: readonly StepShape[] }): string {
  return ['flowchart TD', ...flowLines(flow.steps, '', '  ', 0)].join('\n');
}
