import type { PendingStep } from '../machines/flow/waits.js';
import { SUMMARY_NODE } from '../runtime/crew/summary.js';
import type { StepDetails } from '../runtime/flow/definition.js';
import type { StatecrewEvent } from '../types.js';
import { type CrewViewSource, crewRunFacts } from './crew-runs.js';
import { type FlowViewSource, flowRunFacts } from './flow-runs.js';
import { toFlowView } from './flow-view.js';
import { agentLanes } from './lanes.js';
import type { RunView, ViewNode, ViewRun } from './model.js';
import { firstStart, showLatest, timelineOf } from './timeline.js';

/**
 * Pictures of a stored run drawn without its definition: a node per step or task the run reached (in
 * the order it reached them), each with its runs, and no edges — what follows what is the
 * definition's to say. What the run kept (its events, or its snapshot or execution document) gives the
 * statuses, details, timeline and totals, as it does for a view drawn with the definition.
 */

/** A step's kind in the picture: a human step, a wait for an outside event, or a step. */
const STEP_KINDS: Readonly<Record<PendingStep['kind'], StepDetails['kind']>> = {
  human: 'human',
  event: 'wait',
  crew: 'listen',
};

/** The kinds of the steps a flow run's events say it paused for. */
function pausedKinds(events: readonly StatecrewEvent[]): Map<string, PendingStep['kind']> {
  const kinds = new Map<string, PendingStep['kind']>();
  for (const event of events) {
    if (event.type !== 'flow.paused') continue;
    for (const waiting of event.waitingFor ?? []) kinds.set(waiting.step, waiting.kind);
  }
  return kinds;
}

/** A step of the picture: what the run tells of it (what it waits for), no trigger, no body. */
function storedStep(
  name: string,
  index: number,
  kind: PendingStep['kind'] | undefined,
  pending: PendingStep | undefined,
): StepDetails {
  const step: StepDetails = {
    name,
    index,
    kind: kind === undefined ? 'listen' : STEP_KINDS[kind],
    trigger: undefined,
    routes: pending?.kind === 'human' ? [...pending.routes] : kind === 'human' ? [] : undefined,
    maxRuns: undefined,
    retries: 0,
    retryDelayMs: 0,
    timeoutMs: undefined,
  };
  if (pending?.kind === 'human') step.prompt = pending.prompt;
  if (pending?.kind === 'event') step.event = pending.event;
  return step;
}

/**
 * A stored flow run of flow `name`, drawn from what it kept: its events, or its snapshot (or
 * `flow.getRun(id)`). A step it paused for is drawn as a human or wait step.
 */
export function storedFlowView(name: string, source: FlowViewSource): RunView {
  const facts = flowRunFacts(source);
  const events = 'events' in source ? (source.events ?? []) : [];
  const kinds = pausedKinds(events);
  const names = [
    ...new Set([...facts.runs.keys(), ...facts.waits.keys(), ...facts.pending.map((p) => p.step)]),
  ];
  const steps = names.map((step, index) => {
    const pending = facts.pending.find((p) => p.step === step);
    return storedStep(step, index, pending?.kind ?? kinds.get(step), pending);
  });
  const view = toFlowView({ name, definition: { steps } }, source);
  // The notes of a step drawn without its definition would say what no definition said.
  for (const node of view.nodes) delete node.notes;
  return view;
}

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
 * A stored crew run of crew `name` (process `process`), drawn from what it kept: its events, or its
 * execution document.
 */
export function storedCrewView(name: string, process: string, source: CrewViewSource): RunView {
  const facts = crewRunFacts(source, () => undefined);
  const nodes = crewNodes(facts.runs.values(), facts.blocked ?? []);
  const view: RunView = { kind: 'crew', name, process, nodes, edges: [], timeline: [], totals: facts.totals };
  if (facts.id !== undefined) view.id = facts.id;
  if (facts.status !== undefined) view.status = facts.status;
  const { startedAt, timeMs } = facts.totals;
  const now = startedAt !== undefined && timeMs !== undefined ? startedAt + timeMs : undefined;
  view.timeline = timelineOf(nodes, startedAt, now);
  const lanes = agentLanes(nodes, startedAt ?? firstStart(nodes), now);
  if (lanes !== undefined) view.lanes = lanes;
  return view;
}
