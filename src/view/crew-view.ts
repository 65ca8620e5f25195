import { emptyUsage } from '../models/usage.js';
import type { Crew } from '../runtime/crew/crew.js';
import { type CrewProcessShape, crewGraph } from './crew-graph.js';
import { type CrewRunFacts, type CrewViewSource, crewRunFacts } from './crew-runs.js';
import { agentLanes } from './lanes.js';
import type { RunView, ViewEdge, ViewNode, ViewNodeKind, ViewRun } from './model.js';
import { firstStart, markTaken, ran, showLatest, timelineOf } from './timeline.js';

/** The nodes a process adds besides the tasks, each with the runs that belong to it. */
type ProcessNodes = CrewProcessShape['nodes'];

/**
 * The view node a run belongs to, and its iteration: a process node's run (`judge:2`, the judge's
 * second verdict), or a task's (`draft#2` is task `draft`'s second run).
 */
function ownerOf(
  runId: string,
  byId: ReadonlyMap<string, ViewNode>,
  processNodes: ProcessNodes,
): [ViewNode, number?] | undefined {
  for (const node of processNodes) {
    const match = node.runs?.exec(runId);
    if (match !== null && match !== undefined) {
      return owned(byId, node.id, match[1] === undefined ? undefined : Number(match[1]));
    }
  }
  const own = byId.get(runId);
  if (own !== undefined) return [own];
  const iteration = /^(.*)#(\d+)$/.exec(runId);
  return iteration === null ? undefined : owned(byId, iteration[1] as string, Number(iteration[2]));
}

function owned(byId: ReadonlyMap<string, ViewNode>, id: string, iteration?: number) {
  const node = byId.get(id);
  if (node === undefined) return undefined;
  return iteration === undefined ? ([node] as [ViewNode]) : ([node, iteration] as [ViewNode, number]);
}

/** The tasks a failure keeps from running, as far as `reach` says, for a stored run (which does not list them). */
function derivedBlocked(
  reach: CrewProcessShape['blocksOnFailure'],
  nodes: readonly ViewNode[],
  edges: readonly ViewEdge[],
): string[] {
  const tasks = nodes.filter((n) => n.kind === 'task');
  const failed = tasks.findIndex((t) => t.status === 'failed');
  if (failed < 0 || reach === 'none') return [];
  if (reach === 'following') return tasks.slice(failed + 1).map((t) => t.id);
  const blocked = new Set<string>();
  const visit = (id: string) => {
    for (const edge of edges) {
      if (edge.from === id && !blocked.has(edge.to)) {
        blocked.add(edge.to);
        visit(edge.to);
      }
    }
  };
  for (const task of tasks) if (task.status === 'failed') visit(task.id);
  return [...blocked];
}

/** The first node of `kind`. */
function ofKind(byId: ReadonlyMap<string, ViewNode>, kind: ViewNodeKind): ViewNode | undefined {
  for (const node of byId.values()) if (node.kind === kind) return node;
  return undefined;
}

/** A hierarchical manager's allocations among the run's hand-overs (agents' own messages are the nodes'). */
function allocationsOf(facts: CrewRunFacts): { task: string; role: string }[] {
  return facts.delegations.flatMap((d) => (d.kind === 'allocate' ? [d] : []));
}

/** The manager's, synthesis', judge's and markers' statuses and details, from the run's facts. */
function advisorNodes(byId: ReadonlyMap<string, ViewNode>, facts: CrewRunFacts, tasks: ViewNode[]): void {
  const pending = facts.finished ? 'not-run' : 'waiting';
  const anyRan = tasks.some(ran);
  const manager = ofKind(byId, 'manager');
  if (manager !== undefined && manager.runs.length === 0) {
    manager.status = facts.managerCalls > 0 || anyRan ? 'completed' : pending;
    if (facts.advisorUsage !== undefined) manager.usage = facts.advisorUsage;
    if (facts.advisorUsage?.costUsd !== undefined) manager.costUsd = facts.advisorUsage.costUsd;
  }
  const allocations = allocationsOf(facts);
  if (manager !== undefined && allocations.length > 0) {
    manager.notes = allocations.map((d) => `${d.task} → ${d.role}`);
  }
  const synthesis = ofKind(byId, 'synthesis');
  if (synthesis !== undefined && synthesis.runs.length === 0) {
    synthesis.status = facts.synthesis === undefined ? pending : 'completed';
    if (facts.synthesis !== undefined) synthesis.output = facts.synthesis;
  }
  const judge = ofKind(byId, 'judge');
  if (judge !== undefined) {
    for (const verdict of facts.verdicts) {
      if (judge.runs.some((r) => r.iteration === verdict.iteration)) continue;
      judge.runs.push({
        id: `judge:${verdict.iteration}`,
        iteration: verdict.iteration,
        status: 'completed',
        output: verdict.reply,
      });
    }
    judge.runs.sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
    showLatest(judge);
    if (judge.runs.length === 0) judge.status = (facts.iterations ?? 0) > 0 ? 'completed' : pending;
    if (facts.advisorUsage !== undefined) judge.usage = facts.advisorUsage;
    const verdicts = facts.verdicts.map((v) => `Iteration ${v.iteration}: ${v.verdict.toUpperCase()}`);
    judge.notes = [...(judge.notes ?? []), ...verdicts];
  }
  const start = ofKind(byId, 'start');
  if (start !== undefined) start.status = anyRan ? 'completed' : pending;
  const done = ofKind(byId, 'end');
  if (done !== undefined) {
    const ended =
      facts.finished && judge?.status === 'completed' && !tasks.some((t) => t.status === 'failed');
    done.status = ended ? 'completed' : pending;
  }
}

/** Statuses of the nodes that did not run: blocked, or not run (a finished run), or waiting. */
function restingStatuses(nodes: ViewNode[], blocked: ReadonlySet<string>, finished: boolean): void {
  for (const node of nodes) {
    if (node.runs.length > 0 || (node.kind !== 'task' && node.kind !== 'summary')) continue;
    node.status = blocked.has(node.id) ? 'blocked' : finished ? 'not-run' : 'waiting';
  }
}

/** The blocked node ids as view ids (a loop's `polish#2` is task `polish`). */
function blockedIds(
  facts: CrewRunFacts,
  byId: ReadonlyMap<string, ViewNode>,
  processNodes: ProcessNodes,
): Set<string> {
  return new Set((facts.blocked ?? []).flatMap((id) => ownerOf(id, byId, processNodes)?.[0].id ?? []));
}

/** Puts each run on the node it belongs to, and shows each node's latest run. */
function attachRuns(
  facts: CrewRunFacts,
  byId: ReadonlyMap<string, ViewNode>,
  processNodes: ProcessNodes,
): void {
  for (const run of facts.runs.values()) {
    const found = ownerOf(run.id, byId, processNodes);
    if (found === undefined) continue;
    const [node, iteration] = found;
    const placed: ViewRun = iteration === undefined ? run : { ...run, iteration };
    node.runs.push(placed);
  }
  // A loop task blocked in a later iteration than one it ran in shows that iteration as blocked.
  for (const id of facts.blocked ?? []) {
    const [node, iteration] = ownerOf(id, byId, processNodes) ?? [];
    if (node !== undefined && iteration !== undefined && node.runs.length > 0) {
      node.runs.push({ id, iteration, status: 'blocked' });
    }
  }
  for (const node of byId.values()) {
    node.runs.sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
    showLatest(node);
  }
}

/**
 * A crew's run view: its tasks (and the process's own nodes) and edges, with statuses, details,
 * the executed path, a timeline and totals from a run — its result and events, or a stored run — or,
 * without `source`, the definition alone (every node `not-run`).
 *
 * @example
 * const run = crew.run({ inputs: { topic: 'AI' } });
 * const events: StatecrewEvent[] = [];
 * run.events$.subscribe((e) => events.push(e));
 * const view = toCrewView(crew, { output: await run.result, events });
 * await writeRunView(view, 'out/run.html');
 */
export function toCrewView(crew: Crew, source?: CrewViewSource): RunView {
  const shape = crew.processShape();
  const { nodes, edges } = crewGraph(crew, shape);
  const view: RunView = {
    kind: 'crew',
    name: crew.name,
    process: crew.process,
    nodes,
    edges,
    timeline: [],
    totals: { usage: emptyUsage() },
  };
  if (source === undefined) return view;
  const facts = crewRunFacts(source, (kind) => crew.processShape(kind)?.synthesisLeaf);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  attachRuns(facts, byId, shape.nodes);
  const tasks = nodes.filter((n) => n.kind === 'task');
  const blocked =
    facts.blocked === undefined
      ? new Set(facts.finished ? derivedBlocked(shape.blocksOnFailure, nodes, edges) : [])
      : blockedIds(facts, byId, shape.nodes);
  restingStatuses(nodes, blocked, facts.finished);
  advisorNodes(byId, facts, tasks);
  const manager = ofKind(byId, 'manager');
  const allocations = allocationsOf(facts);
  for (const edge of edges) {
    const role = allocations.find((d) => d.task === edge.to)?.role;
    if (edge.from === manager?.id && role !== undefined) edge.label = `allocates → ${role}`;
  }
  markTaken(nodes, edges);
  if (facts.id !== undefined) view.id = facts.id;
  if (facts.status !== undefined) view.status = facts.status;
  view.totals = facts.totals;
  const now =
    facts.totals.startedAt !== undefined && facts.totals.timeMs !== undefined
      ? facts.totals.startedAt + facts.totals.timeMs
      : undefined;
  view.timeline = timelineOf(nodes, facts.totals.startedAt, now);
  const lanes = agentLanes(nodes, facts.totals.startedAt ?? firstStart(nodes), now);
  if (lanes !== undefined) view.lanes = lanes;
  return view;
}
