import { addUsage, emptyUsage } from '../models/usage.js';
import type { ExecutionDocumentData } from '../runtime/crew/execution-document.js';
import { SUMMARY_NODE } from '../runtime/crew/summary.js';
import type { CrewOutput, Delegation, NodeExecutionInfo, StatecrewEvent, Usage } from '../types.js';
import { resultMessages, setMessages } from './messages.js';
import type { RunViewStatus, ViewMessage, ViewRun, ViewTotals } from './model.js';
import { foldNodeEvents, setOutput } from './node-events.js';
import { plain } from './plain.js';
import { type RunEventFacts, runEventFacts, type Verdict } from './run-events.js';

/**
 * A crew run to view from its result and the events collected while it ran; either may be left out
 * (events alone: a run still going on).
 */
export interface CrewRunSource {
  output?: CrewOutput | undefined;
  events?: readonly StatecrewEvent[] | undefined;
}

/** What `toCrewView` can show: a run's result and events, or a stored run (`ExecutionDocument`). */
export type CrewViewSource = CrewRunSource | ExecutionDocumentData;

/** What a crew run tells about its nodes, from whichever source. */
export interface CrewRunFacts {
  id: string | undefined;
  status: RunViewStatus | undefined;
  /** The run ended: nodes it did not reach never ran (else they may still run). */
  finished: boolean;
  /** Every node run, by its run's node id, in the order they settled or started. */
  runs: Map<string, ViewRun>;
  /** Node ids the run blocked; undefined when the source does not say (a stored run). */
  blocked: string[] | undefined;
  /** Every hand-over the source tells of: a manager's allocations, agents' messages (a stored run: none). */
  delegations: Delegation[];
  managerCalls: number;
  advisorUsage: Usage | undefined;
  verdicts: Verdict[];
  iterations: number | undefined;
  /** The run's synthesis, when its process synthesizes the output and the synthesis completed. */
  synthesis: string | undefined;
  totals: ViewTotals;
}

/** Whether a source is a stored run. */
export function isStoredCrewRun(source: CrewViewSource): source is ExecutionDocumentData {
  return 'results' in source && Array.isArray(source.results) && 'executionId' in source;
}

function usageTotals(
  usage: Usage,
  startedAt: number | undefined,
  timeMs: number | undefined,
  agents: Record<string, Usage> | undefined,
): ViewTotals {
  const totals: ViewTotals = { usage };
  if (agents !== undefined && Object.keys(agents).length > 0) totals.agents = agents;
  if (usage.costUsd !== undefined) totals.costUsd = usage.costUsd;
  if (startedAt !== undefined) totals.startedAt = startedAt;
  if (timeMs !== undefined) totals.timeMs = timeMs;
  return totals;
}

/**
 * The leaf a run's output comes from when the process named `kind` synthesizes it (see the process
 * shape's `synthesisLeaf`); undefined when the output is a task's, or no process has that name.
 */
export type SynthesisLeafOf = (kind: string) => string | undefined;

/** What each agent spent over a stored run's results: a result's usage by agent, else all its agent's. */
function storedAgentUsage(results: ExecutionDocumentData['results']): Record<string, Usage> {
  const agents: Record<string, Usage> = {};
  for (const result of results) {
    for (const [role, usage] of Object.entries(result.agentUsage ?? { [result.agent]: result.usage })) {
      agents[role] = addUsage(agents[role] ?? emptyUsage(), usage);
    }
  }
  return agents;
}

/** A stored run's facts: each stored result is a node run. */
export function storedCrewFacts(doc: ExecutionDocumentData, synthesisLeafOf: SynthesisLeafOf): CrewRunFacts {
  const runs = new Map<string, ViewRun>();
  const usage = emptyUsage();
  for (const result of doc.results) {
    const run: ViewRun = {
      id: result.nodeId,
      status: result.status,
      agent: result.agent,
      attempts: result.attempts,
      retries: Math.max(0, result.attempts - 1),
      durationMs: result.durationMs,
      usage: { ...result.usage },
    };
    if (result.usage.costUsd !== undefined) run.costUsd = result.usage.costUsd;
    if (result.startedAt !== undefined) run.startedAt = result.startedAt;
    if (result.prompt !== undefined) run.prompt = result.prompt;
    if (result.context !== undefined) run.context = result.context;
    if (result.raw !== undefined) run.output = result.raw;
    if (result.structured !== undefined) run.structured = plain(result.structured);
    if (result.error !== undefined) run.error = result.error;
    if (result.code !== undefined) run.code = result.code;
    setMessages(run, result.delegations);
    addUsage(usage, result.usage);
    runs.set(run.id, run);
  }
  const iterations = Math.max(0, ...[...runs.keys()].map((id) => Number(id.split('#')[1] ?? 0) || 0));
  const synthesis =
    synthesisLeafOf(doc.process) !== undefined &&
    doc.status !== 'interrupted' &&
    typeof doc.output === 'string'
      ? doc.output
      : undefined;
  return {
    id: doc.executionId,
    status: doc.status,
    finished: doc.status !== 'interrupted' && doc.status !== 'paused',
    runs,
    blocked: undefined,
    delegations: [],
    managerCalls: 0,
    advisorUsage: undefined,
    verdicts: [],
    iterations: iterations > 0 ? iterations : undefined,
    synthesis,
    totals: usageTotals(usage, doc.startedAt, doc.totalTimeMs, storedAgentUsage(doc.results)),
  };
}

/** A result's node entry laid over what the events told of that run. */
function mergeNode(run: ViewRun, node: NodeExecutionInfo): void {
  run.status = node.status;
  if (node.agent !== '') run.agent = node.agent;
  // A call that failed outside any task run (a manager's, a judge's) has no start.
  if (node.startedAt > 0) run.startedAt = node.startedAt;
  run.durationMs = node.durationMs;
  run.attempts = node.attempts;
  run.retries = Math.max(0, node.attempts - 1);
  run.usage = { ...node.usage };
  if (node.usage.costUsd !== undefined) run.costUsd = node.usage.costUsd;
  if (node.error !== undefined) run.error = node.error;
  if (node.errorCode !== undefined) run.code = node.errorCode;
}

/** The outputs of a result's completed runs: paired with `tasksOutput`, both in completion order. */
function resultOutputs(output: CrewOutput, runs: Map<string, ViewRun>): void {
  const completed = output.nodes.filter((n) => n.status === 'completed' && n.nodeId !== SUMMARY_NODE);
  const paired = completed.length === output.tasksOutput.length;
  completed.forEach((node, i) => {
    const run = runs.get(node.nodeId);
    if (run === undefined || run.output !== undefined) return;
    const task = paired ? output.tasksOutput[i] : undefined;
    if (task !== undefined) setOutput(run, task);
    else if (node.nodeId in output.nodeResults) run.structured = plain(output.nodeResults[node.nodeId]);
  });
  const summary = runs.get(SUMMARY_NODE);
  if (summary?.status === 'completed' && summary.output === undefined) summary.output = output.summary;
}

/** Each node's messages on its run. */
function attachMessages(
  runs: Map<string, ViewRun>,
  messages: ReadonlyMap<string, readonly ViewMessage[]>,
): void {
  for (const [nodeId, list] of messages) {
    const run = runs.get(nodeId);
    if (run !== undefined) setMessages(run, list);
  }
}

/** A run still going (or one whose result was not kept): its facts from its events alone. */
function goingFacts(
  events: readonly StatecrewEvent[],
  facts: RunEventFacts,
  runs: Map<string, ViewRun>,
): CrewRunFacts {
  const timeMs =
    facts.startedAt !== undefined && facts.lastAt !== undefined ? facts.lastAt - facts.startedAt : undefined;
  return {
    id: events[0]?.runId,
    status: facts.status ?? (events.length > 0 ? 'running' : undefined),
    finished: facts.status !== undefined && facts.status !== 'paused',
    runs,
    blocked: facts.blocked,
    delegations: facts.delegations,
    managerCalls: facts.managerCalls,
    advisorUsage: facts.advisorUsage,
    verdicts: facts.verdicts,
    iterations: undefined,
    synthesis: undefined,
    totals: usageTotals(facts.usage, facts.startedAt, timeMs, facts.agents),
  };
}

/** A finished (or going) run's facts, from its result and events. */
export function liveCrewFacts(source: CrewRunSource, synthesisLeafOf: SynthesisLeafOf): CrewRunFacts {
  const events = source.events ?? [];
  const facts = runEventFacts(events);
  const runs = foldNodeEvents(events);
  const { output } = source;
  if (output === undefined) {
    attachMessages(runs, facts.messages);
    return goingFacts(events, facts, runs);
  }
  for (const node of output.nodes) {
    const run = runs.get(node.nodeId) ?? { id: node.nodeId, status: node.status };
    mergeNode(run, node);
    runs.set(node.nodeId, run);
  }
  resultOutputs(output, runs);
  // Without the events, the result tells who asked whom and the replies, but not when.
  attachMessages(runs, events.length > 0 ? facts.messages : resultMessages(output));
  const { manager: _manager, workers: _workers, agents, ...usage } = output.usage;
  const metadata = output.metadata;
  const verdicts = Array.isArray(metadata.verdicts) ? (metadata.verdicts as Verdict[]) : facts.verdicts;
  const startedAt = facts.startedAt ?? minStart(output.nodes);
  const synthesisLeaf = synthesisLeafOf(metadata.process);
  return {
    id: metadata.executionId,
    status: output.status,
    finished: true,
    runs,
    blocked: metadata.blocked,
    delegations: output.delegations,
    managerCalls: output.managerCalls,
    advisorUsage: output.usage.manager,
    verdicts: plain(verdicts) as Verdict[],
    iterations: typeof metadata.iterations === 'number' ? metadata.iterations : undefined,
    synthesis: synthesisLeaf !== undefined && metadata.leaves[0] === synthesisLeaf ? output.raw : undefined,
    totals: usageTotals(usage, startedAt, output.totalTimeMs, agents),
  };
}

function minStart(nodes: readonly NodeExecutionInfo[]): number | undefined {
  const starts = nodes.map((n) => n.startedAt).filter((at) => at > 0);
  return starts.length === 0 ? undefined : Math.min(...starts);
}

/** A crew source's facts, whichever kind it is; `synthesisLeafOf` tells by its process's name what its output is. */
export function crewRunFacts(source: CrewViewSource, synthesisLeafOf: SynthesisLeafOf): CrewRunFacts {
  return isStoredCrewRun(source)
    ? storedCrewFacts(source, synthesisLeafOf)
    : liveCrewFacts(source, synthesisLeafOf);
}
