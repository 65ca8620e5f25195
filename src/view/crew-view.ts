import { emptyUsage } from '../models/usage.js';
import type { Crew } from '../runtime/crew/crew.js';
import { crewGraph, MARKER } from './crew-graph.js';
import { type CrewRunFacts, type CrewViewSource, crewRunFacts } from './crew-runs.js';
import type { RunView, ViewEdge, ViewNode, ViewRun } from './model.js';
import { markTaken, ran, showLatest, timelineOf } from './timeline.js';

/** The view node a run belongs to, and its iteration: `draft#2` is task `draft`'s second run. */
function ownerOf(runId: string, byId: ReadonlyMap<string, ViewNode>): [ViewNode, number?] | undefined {
  if (runId.startsWith('allocate:')) return owned(byId, MARKER.manager);
  if (runId === 'synthesize') return owned(byId, MARKER.synthesis);
  const judged = /^judge:(\d+)$/.exec(runId);
  if (judged !== null) return owned(byId, MARKER.judge, Number(judged[1]));
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

/** The tasks a failure keeps from running, for a stored run (which does not list them). */
function derivedBlocked(process: string, nodes: readonly ViewNode[], edges: readonly ViewEdge[]): string[] {
  const tasks = nodes.filter((n) => n.kind === 'task');
  const failed = tasks.findIndex((t) => t.status === 'failed');
  if (failed < 0 || process === 'parallel') return [];
  if (process !== 'graph') return tasks.slice(failed + 1).map((t) => t.id);
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

/** The manager's, synthesis', judge's and markers' statuses and details, from the run's facts. */
function advisorNodes(byId: ReadonlyMap<string, ViewNode>, facts: CrewRunFacts, tasks: ViewNode[]): void {
  const pending = facts.finished ? 'not-run' : 'waiting';
  const anyRan = tasks.some(ran);
  const manager = byId.get(MARKER.manager);
  if (manager !== undefined && manager.runs.length === 0) {
    manager.status = facts.managerCalls > 0 || anyRan ? 'completed' : pending;
    if (facts.advisorUsage !== undefined) manager.usage = facts.advisorUsage;
    if (facts.advisorUsage?.costUsd !== undefined) manager.costUsd = facts.advisorUsage.costUsd;
  }
  if (manager !== undefined && facts.delegations.length > 0) {
    manager.notes = facts.delegations.map((d) => `${d.task} → ${d.role}`);
  }
  const synthesis = byId.get(MARKER.synthesis);
  if (synthesis !== undefined && synthesis.runs.length === 0) {
    synthesis.status = facts.synthesis === undefined ? pending : 'completed';
    if (facts.synthesis !== undefined) synthesis.output = facts.synthesis;
  }
  const judge = byId.get(MARKER.judge);
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
  const start = byId.get(MARKER.start);
  if (start !== undefined) start.status = anyRan ? 'completed' : pending;
  const done = byId.get(MARKER.done);
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
function blockedIds(facts: CrewRunFacts, byId: ReadonlyMap<string, ViewNode>): Set<string> {
  return new Set((facts.blocked ?? []).flatMap((id) => ownerOf(id, byId)?.[0].id ?? []));
}

function attachRuns(facts: CrewRunFacts, byId: ReadonlyMap<string, ViewNode>): void {
  for (const run of facts.runs.values()) {
    const found = ownerOf(run.id, byId);
    if (found === undefined) continue;
    const [node, iteration] = found;
    const placed: ViewRun = iteration === undefined ? run : { ...run, iteration };
    node.runs.push(placed);
  }
  // A loop task blocked in a later iteration than one it ran in shows that iteration as blocked.
  for (const id of facts.blocked ?? []) {
    const [node, iteration] = ownerOf(id, byId) ?? [];
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
 * const view = crewView(crew, { output: await run.result, events });
 * await writeRunView(view, 'out/run.html');
 */
export function crewView(crew: Crew, source?: CrewViewSource): RunView {
  const { nodes, edges } = crewGraph(crew);
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
  const facts = crewRunFacts(source);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  attachRuns(facts, byId);
  const tasks = nodes.filter((n) => n.kind === 'task');
  const blocked =
    facts.blocked === undefined
      ? new Set(facts.finished ? derivedBlocked(crew.process, nodes, edges) : [])
      : blockedIds(facts, byId);
  restingStatuses(nodes, blocked, facts.finished);
  advisorNodes(byId, facts, tasks);
  for (const edge of edges) {
    const role = facts.delegations.find((d) => d.task === edge.to)?.role;
    if (edge.from === MARKER.manager && role !== undefined) edge.label = `allocates → ${role}`;
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
  return view;
}
