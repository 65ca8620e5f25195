import { emptyUsage } from '../models/usage.js';
import { composedDetails } from './composed-view.js';
import { type FlowEdge, type FlowShape, flowGraph } from './flow-graph.js';
import { type FlowRunFacts, type FlowViewSource, flowRunFacts } from './flow-runs.js';
import type { RunView, TimelineEntry, ViewHuman, ViewNode, ViewTotals, ViewWait } from './model.js';
import { firstStart, ran, showLatest, timelineOf, waitEntry } from './timeline.js';

/** The wait of a human or wait step: its pending entry and the events' account, on `into`; paused while it waits. */
function waitDetails(node: ViewNode, facts: FlowRunFacts, into: ViewHuman | ViewWait): void {
  const pending = facts.pending.find((p) => p.step === node.id);
  const wait = facts.waits.get(node.id);
  if (
    pending !== undefined ||
    (wait !== undefined && wait.waitedMs === undefined && facts.status === 'paused')
  ) {
    node.status = 'paused';
  }
  const timeoutAt = pending?.timeoutAt ?? wait?.timeoutAt;
  if (timeoutAt !== undefined) into.timeoutAt = timeoutAt;
  if (wait !== undefined) {
    into.waitingSince = wait.since;
    if (wait.waitedMs !== undefined) into.waitedMs = wait.waitedMs;
  }
  // A timeout emits the step's `onTimeout` label (only its own step may), or fails it with `step_timeout`.
  const { onTimeout } = into;
  const labelled = onTimeout !== undefined && facts.emitted.has(onTimeout);
  if (wait?.timedOut === true || labelled || node.runs.at(-1)?.code === 'step_timeout') into.timedOut = true;
}

/** A human step's prompt, routes, answer, deadline and wait, from the run. */
function humanDetails(node: ViewNode, facts: FlowRunFacts): void {
  const human = node.human ?? { routes: [] };
  node.human = human;
  const pending = facts.pending.find((p) => p.step === node.id);
  if (pending?.kind === 'human') {
    human.prompt = pending.prompt;
    human.routes = [...pending.routes];
  }
  const answer = node.runs.findLast((r) => r.status === 'completed')?.structured as
    | { route?: unknown; feedback?: unknown }
    | undefined;
  if (typeof answer?.route === 'string') human.route = answer.route;
  if (answer?.feedback !== undefined) human.feedback = answer.feedback;
  waitDetails(node, facts, human);
}

/** A wait step's event, deadline and wait, or a sleep step's wake time, from the run. */
function timeDetails(node: ViewNode, facts: FlowRunFacts): void {
  if (node.kind === 'human') humanDetails(node, facts);
  if (node.kind === 'wait') {
    node.wait ??= { event: '' };
    const pending = facts.pending.find((p) => p.step === node.id);
    if (pending?.kind === 'event') node.wait.event = pending.event;
    waitDetails(node, facts, node.wait);
  }
  if (node.kind === 'sleep') {
    node.sleep ??= {};
    const wakeAt = facts.sleeps.get(node.runs.at(-1)?.id ?? node.id);
    if (wakeAt !== undefined) node.sleep.wakeAt = wakeAt;
  }
}

/** A wait bar per human or wait step the run paused for (to its end, or to the run's end while it waits). */
function waitEntries(nodes: readonly ViewNode[], origin: number | undefined, end: number | undefined) {
  if (origin === undefined) return [];
  return nodes.flatMap((node): TimelineEntry[] => {
    const wait = node.human ?? node.wait;
    const since = wait?.waitingSince;
    if (since === undefined) return [];
    const waited = wait?.waitedMs ?? Math.max(0, (end ?? since) - since);
    const status = node.status === 'paused' ? 'paused' : 'completed';
    return [waitEntry(node, origin, since, waited, status)];
  });
}

function markFlowTaken(nodes: readonly ViewNode[], edges: readonly FlowEdge[], emitted: ReadonlySet<string>) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const { edge, token } of edges) {
    const to = byId.get(edge.to);
    edge.taken = emitted.has(token) && to !== undefined && ran(to);
  }
}

/** Whether a node settled: it ran and is not running or waiting for an answer. */
const settled = (node: ViewNode | undefined) =>
  node !== undefined && node.runs.length > 0 && (node.status === 'completed' || node.status === 'failed');

/**
 * Marks `not-run` a step of a run still going that waits on branches already decided: every step
 * that could trigger it settled without emitting what it listens for (a router chose another route).
 */
function untakenBranches(
  nodes: readonly ViewNode[],
  edges: readonly FlowEdge[],
  emitted: ReadonlySet<string>,
) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const node of nodes) {
    if (node.status !== 'waiting' || node.runs.length > 0) continue;
    const incoming = edges.filter(({ edge }) => edge.to === node.id);
    const decided = incoming.every(({ edge, token }) => !emitted.has(token) && settled(byId.get(edge.from)));
    if (incoming.length > 0 && decided) node.status = 'not-run';
  }
}

function totalsOf(facts: FlowRunFacts): ViewTotals {
  const totals: ViewTotals = { usage: facts.usage };
  if (facts.usage.costUsd !== undefined) totals.costUsd = facts.usage.costUsd;
  if (facts.startedAt !== undefined) totals.startedAt = facts.startedAt;
  if (facts.timeMs !== undefined) totals.timeMs = facts.timeMs;
  return totals;
}

/**
 * A flow's run view: its steps (routers, human, wait and sleep steps marked) and an edge from each
 * trigger to its listener, labelled with the route (`failed` on a failure edge, the `onTimeout` label
 * on a timeout edge), with statuses (a handled failure marked `handled`), outputs, waits with their
 * deadlines, sleeps with their wake times, the executed path, a timeline and totals from a run — its
 * result and events, or a stored run (`flow.getRun(id)` or a snapshot) — or, without `source`, the
 * definition alone (every step `not-run`).
 *
 * @example
 * const run = flow.run({ inputs: { amount: 250 } });
 * const events: StatecrewEvent[] = [];
 * run.events$.subscribe((e) => events.push(e));
 * const view = toFlowView(flow, { output: await run.result, events });
 * const html = renderRunView(view);
 */
export function toFlowView(flow: FlowShape, source?: FlowViewSource): RunView {
  const { nodes, edges } = flowGraph(flow);
  const view: RunView = {
    kind: 'flow',
    name: flow.name,
    nodes,
    edges: edges.map((e) => e.edge),
    timeline: [],
    totals: { usage: emptyUsage() },
  };
  if (source === undefined) return view;
  const facts = flowRunFacts(source);
  for (const node of nodes) {
    node.runs = facts.runs.get(node.id) ?? [];
    showLatest(node);
    if (node.runs.length === 0) node.status = facts.finished ? 'not-run' : 'waiting';
    const usage = facts.usageByStep.get(node.id);
    if (usage !== undefined) {
      node.usage = usage;
      if (usage.costUsd !== undefined) node.costUsd = usage.costUsd;
    }
    timeDetails(node, facts);
    composedDetails(
      node,
      facts,
      flow.definition.steps.find((s) => s.name === node.id),
    );
  }
  markFlowTaken(nodes, edges, facts.emitted);
  untakenBranches(nodes, edges, facts.emitted);
  if (facts.id !== undefined) view.id = facts.id;
  if (facts.status !== undefined) view.status = facts.status;
  view.totals = totalsOf(facts);
  const end =
    facts.startedAt !== undefined && facts.timeMs !== undefined ? facts.startedAt + facts.timeMs : undefined;
  const origin = facts.startedAt ?? firstStart(nodes);
  view.timeline = [...timelineOf(nodes, origin, end), ...waitEntries(nodes, origin, end)].sort(
    (a, b) => a.startMs - b.startMs,
  );
  return view;
}
