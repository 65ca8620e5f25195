import type { Crew } from '../runtime/crew/crew.js';
import { type CrewPlan, planCrew } from '../runtime/crew/plan.js';
import { SUMMARY_NODE } from '../runtime/crew/summary.js';
import type { ViewEdge, ViewNode, ViewNodeKind } from './model.js';

/** The process's shape, as the crew gives it. */
export type CrewProcessShape = NonNullable<ReturnType<Crew['processShape']>>;

/** A crew's picture before any run: its nodes (all `not-run`) and edges (none taken). */
export interface CrewGraph {
  nodes: ViewNode[];
  edges: ViewEdge[];
}

const marker = (id: string, label: string, kind: ViewNodeKind): ViewNode => ({
  id,
  label,
  kind,
  status: 'not-run',
  runs: [],
});

const edge = (from: string, to: string, label?: string, back?: boolean): ViewEdge => ({
  from,
  to,
  taken: false,
  ...(label === undefined ? {} : { label }),
  ...(back === true ? { back } : {}),
});

function taskNodes(plan: CrewPlan): ViewNode[] {
  return plan.tasks.map((planned) => {
    const node: ViewNode = {
      id: planned.nodeId,
      label: planned.nodeId,
      kind: 'task',
      status: 'not-run',
      description: planned.description,
      runs: [],
    };
    if (planned.expectedOutput !== '') node.expectedOutput = planned.expectedOutput;
    if (planned.agent !== undefined) node.agent = planned.agent.role;
    return node;
  });
}

/**
 * A crew's nodes and edges, as `toMermaid()` draws them from its process's shape (a sequential chain,
 * a graph's `context` DAG, a parallel fan-out, manager → tasks → synthesis, a loop's chain with its
 * judge and back edge); then the `summary` node, reading what the process ends with.
 */
export function crewGraph(crew: Crew, shape: CrewProcessShape): CrewGraph {
  const plan = planCrew(crew, {});
  const nodes = [...taskNodes(plan), ...shape.nodes.map((n) => marker(n.id, n.label, n.kind))];
  const edges = shape.edges.map((e) => edge(e.from, e.to, e.label, e.back));
  if (crew.summary !== undefined) {
    const summary = marker(SUMMARY_NODE, SUMMARY_NODE, 'summary');
    summary.agent = crew.summary.agent.role;
    summary.description = crew.summary.task.description;
    nodes.push(summary);
    for (const end of shape.ends) edges.push(edge(end, SUMMARY_NODE));
  }
  const judge = nodes.find((n) => n.kind === 'judge');
  if (judge !== undefined && crew.loop !== undefined) {
    judge.description = crew.loop.condition;
    judge.notes = [`Iterations at most: ${crew.loop.maxIterations ?? 3}`];
  }
  return { nodes, edges };
}
