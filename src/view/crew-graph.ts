import type { Crew } from '../runtime/crew/crew.js';
import { type CrewPlan, planCrew } from '../runtime/crew/plan.js';
import { SUMMARY_NODE } from '../runtime/crew/summary.js';
import type { ViewEdge, ViewNode, ViewNodeKind } from './model.js';

/** The ids of the nodes a process adds besides the tasks, marked with `@` to stand apart from task names. */
export const MARKER = {
  manager: '@manager',
  synthesis: '@synthesis',
  judge: '@judge',
  start: '@start',
  done: '@done',
} as const;

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

/** The tasks no other task reads (a graph crew's leaves). */
function leavesOf(plan: CrewPlan): string[] {
  const read = new Set(plan.tasks.flatMap((t) => t.contextIds ?? []));
  return plan.tasks.filter((t) => !read.has(t.nodeId)).map((t) => t.nodeId);
}

/** The process's own nodes and edges, and the nodes its summary (if any) reads from. */
function processShape(process: string, plan: CrewPlan): CrewGraph & { ends: string[] } {
  const ids = plan.tasks.map((t) => t.nodeId);
  const chain = ids.slice(1).map((id, i) => edge(ids[i] as string, id));
  switch (process) {
    case 'graph':
      return {
        nodes: [],
        edges: plan.tasks.flatMap((t) => (t.contextIds ?? []).map((dep) => edge(dep, t.nodeId))),
        ends: leavesOf(plan),
      };
    case 'parallel':
      return {
        nodes: [marker(MARKER.start, 'start', 'start')],
        edges: ids.map((id) => edge(MARKER.start, id)),
        ends: ids,
      };
    case 'hierarchical':
      return {
        nodes: [
          marker(MARKER.manager, 'manager', 'manager'),
          marker(MARKER.synthesis, 'synthesis', 'synthesis'),
        ],
        edges: [
          ...ids.map((id) => edge(MARKER.manager, id, 'allocates')),
          ...ids.map((id) => edge(id, MARKER.synthesis)),
        ],
        ends: [MARKER.synthesis],
      };
    case 'loop': {
      const first = ids[0];
      const last = ids.at(-1);
      const edges = [...chain];
      if (last !== undefined) edges.push(edge(last, MARKER.judge));
      if (first !== undefined) edges.push(edge(MARKER.judge, first, 'NO', true));
      edges.push(edge(MARKER.judge, MARKER.done, 'YES'));
      return {
        nodes: [marker(MARKER.judge, 'judge', 'judge'), marker(MARKER.done, 'done', 'end')],
        edges,
        ends: [MARKER.done],
      };
    }
    default:
      return { nodes: [], edges: chain, ends: ids.slice(-1) };
  }
}

/**
 * A crew's nodes and edges, as `toMermaid()` draws them: a sequential chain, a graph's `context` DAG,
 * a parallel fan-out, manager → tasks → synthesis, a loop's chain with its judge and back edge; then
 * the `summary` node, reading what the process ends with.
 */
export function crewGraph(crew: Crew): CrewGraph {
  const plan = planCrew(crew, {});
  const shape = processShape(crew.process, plan);
  const nodes = [...taskNodes(plan), ...shape.nodes];
  const edges = [...shape.edges];
  if (crew.summary !== undefined) {
    const summary = marker(SUMMARY_NODE, SUMMARY_NODE, 'summary');
    summary.agent = crew.summary.agent.role;
    summary.description = crew.summary.task.description;
    nodes.push(summary);
    for (const end of shape.ends) edges.push(edge(end, SUMMARY_NODE));
  }
  const judge = nodes.find((n) => n.id === MARKER.judge);
  if (judge !== undefined && crew.loop !== undefined) {
    judge.description = crew.loop.condition;
    judge.notes = [`Iterations at most: ${crew.loop.maxIterations ?? 3}`];
  }
  return { nodes, edges };
}
