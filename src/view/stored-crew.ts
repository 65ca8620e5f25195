import { SUMMARY_NODE } from '../runtime/crew/summary.js';
import { type CrewViewSource, crewRunFacts } from './crew-runs.js';
import { agentLanes } from './lanes.js';
import type { RunView, ViewEdge, ViewNode, ViewRun } from './model.js';
import { firstStart, markTaken, showLatest, timelineOf } from './timeline.js';

/**
 * A stored crew run drawn without its definition: a node per task the run reached, in the order
 * they first ran, each with its runs. Only a sequential crew's edges are drawn: its tasks run one
 * after another in the order the definition lists them, so the tasks it ran, in the order they ran,
 * are a chain of the definition. Other processes' edges (a graph's `context`, a manager's
 * hand-overs) are not kept, so not drawn.
 */

/** The node a crew run's run belongs to: `draft#2` is task `draft`'s second run, `judge:2` the judge's. */
function ownerOf(runId: string): { id: string; iteration?: number } {
  const match = /^(.*?)[#:](\d+)$/.exec(runId);
  return match === null ? { id: runId } : { id: match[1] as string, iteration: Number(match[2]) };
}

/** The nodes a crew run's runs make, in the order they first ran, each showing its latest run. */
function crewNodes(runs: Iterable<ViewRun>, blocked: readonly string[]): ViewNode[] {
  const byId = new Map<string, ViewNode>();
  const nodeOf = (id: string): ViewNode => {
    const found = byId.get(id);
    if (found !== undefined) return found;
    const made: ViewNode = {
      id,
      label: id,
      kind: id === SUMMARY_NODE ? 'summary' : 'task',
      status: 'not-run',
      runs: [],
    };
    byId.set(id, made);
    return made;
  };
  for (const run of runs) {
    const { id, iteration } = ownerOf(run.id);
    nodeOf(id).runs.push(iteration === undefined ? run : { ...run, iteration });
  }
  for (const id of blocked) {
    const node = nodeOf(ownerOf(id).id);
    if (node.runs.length === 0) node.status = 'blocked';
  }
  for (const node of byId.values()) {
    node.runs.sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
    showLatest(node);
  }
  return [...byId.values()];
}

/**
 * How long a task may seem to start before the one before it ended and still have waited for it: a
 * task's start and its duration are taken a moment apart, so a chain's ends may overlap by a few ms.
 */
const CLOCK_SLACK_MS = 100;

/**
 * Whether each task ran after the one before it ended, as a sequential crew's tasks do unless
 * asynchronous (an asynchronous task runs beside the tasks after it: they start while it runs).
 */
function oneAfterAnother(tasks: readonly ViewNode[]): boolean {
  return tasks.every((task, at) => {
    const before = tasks[at - 1]?.runs[0];
    const start = task.runs[0]?.startedAt;
    if (before === undefined) return true;
    if (start === undefined || before.startedAt === undefined || before.durationMs === undefined)
      return false;
    return start + CLOCK_SLACK_MS >= before.startedAt + before.durationMs;
  });
}

/**
 * The edges of a stored crew run's picture: a sequential crew's chain through the tasks it ran, in
 * the order they ran, marked taken; none for another process, nor when some task started before the
 * one before it ended (an asynchronous task: the definition's picture is no chain; see `CLOCK_SLACK_MS`).
 */
export function storedCrewEdges(process: string, nodes: readonly ViewNode[]): ViewEdge[] {
  if (process !== 'sequential') return [];
  const startOf = (node: ViewNode) => node.runs[0]?.startedAt ?? Number.POSITIVE_INFINITY;
  const tasks = nodes
    .filter((n) => n.kind === 'task' && n.runs.length > 0)
    .sort((a, b) => startOf(a) - startOf(b));
  if (!oneAfterAnother(tasks)) return [];
  const edges = tasks.slice(1).map((task, at): ViewEdge => {
    return { from: (tasks[at] as ViewNode).id, to: task.id, taken: false };
  });
  markTaken(nodes, edges);
  return edges;
}

/**
 * A stored crew run of crew `name` (process `process`), drawn from what it kept: its events, or its
 * execution document. A sequential crew's tasks are joined in the order they ran.
 */
export function storedCrewView(name: string, process: string, source: CrewViewSource): RunView {
  const facts = crewRunFacts(source, () => undefined);
  const nodes = crewNodes(facts.runs.values(), facts.blocked ?? []);
  const edges = storedCrewEdges(process, nodes);
  const view: RunView = { kind: 'crew', name, process, nodes, edges, timeline: [], totals: facts.totals };
  if (facts.id !== undefined) view.id = facts.id;
  if (facts.status !== undefined) view.status = facts.status;
  const { startedAt, timeMs } = facts.totals;
  const now = startedAt !== undefined && timeMs !== undefined ? startedAt + timeMs : undefined;
  view.timeline = timelineOf(nodes, startedAt, now);
  const lanes = agentLanes(nodes, startedAt ?? firstStart(nodes), now);
  if (lanes !== undefined) view.lanes = lanes;
  return view;
}
