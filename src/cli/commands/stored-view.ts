import type { Trigger } from '../../machines/flow/triggers.js';
import { Agent } from '../../runtime/crew/agent.js';
import { Crew } from '../../runtime/crew/crew.js';
import type { ExecutionDocumentData } from '../../runtime/crew/execution-document.js';
import { SUMMARY_NODE } from '../../runtime/crew/summary.js';
import { Task } from '../../runtime/crew/task.js';
import type { StepDetails } from '../../runtime/flow/definition.js';
import type { FlowSnapshot } from '../../runtime/flow/snapshot.js';
import { type RunView, toCrewView, toFlowView } from '../../view/index.js';

/** A task run's node: `draft#2` (a loop's second iteration) is node `draft`. */
const nodeOf = (runId: string) => runId.replace(/#\d+$/, '');

/** The model of the agents of a crew drawn from a stored run: never called (the crew is only drawn). */
const drawnOnly = (): string => {
  throw new Error('a crew drawn from a stored run does not run');
};

/**
 * The view of a stored crew run drawn from the run alone, without its definition (a run a server or
 * code started): a node per task that ran or waits, in the order they first ran, joined in that order
 * for a sequential crew (other processes' edges are not stored: their nodes stand apart).
 */
export function storedCrewView(doc: ExecutionDocumentData): RunView {
  const agents = new Map<string, Agent>();
  const tasks = new Map<string, Task>();
  for (const result of doc.results) {
    const name = nodeOf(result.nodeId);
    // A process's own runs (a judge's `judge:2`) and the summary are no tasks.
    if (tasks.has(name) || name === SUMMARY_NODE || name.includes(':')) continue;
    const agent = agents.get(result.agent) ?? new Agent({ role: result.agent || 'agent', llm: drawnOnly });
    agents.set(result.agent, agent);
    tasks.set(name, new Task({ name, description: result.description || name, agent }));
  }
  const process = doc.process === 'sequential' ? 'sequential' : 'graph';
  const crew = new Crew({ name: doc.crew, process, tasks: [...tasks.values()] });
  return { ...toCrewView(crew, doc), process: doc.process };
}

/** The route label a completed router or human step chose, from its output. */
function labelOf(output: unknown, emitted: ReadonlySet<string>): string | undefined {
  const route =
    typeof output === 'object' && output !== null ? (output as { route?: unknown }).route : output;
  return typeof route === 'string' && emitted.has(route) ? route : undefined;
}

/** What a stored flow run's steps looked like, as far as the run tells: each step's kind and routes. */
function stepOf(snapshot: FlowSnapshot, name: string, index: number): StepDetails {
  const pending = snapshot.pending.find((p) => p.step === name);
  const steps = new Set(snapshot.trail);
  const label = labelOf(snapshot.outputs[name], new Set(snapshot.emitted.filter((e) => !steps.has(e))));
  const human =
    pending?.kind === 'human' || (label !== undefined && typeof snapshot.outputs[name] === 'object');
  const routes = pending?.kind === 'human' ? pending.routes : label === undefined ? undefined : [label];
  return {
    name,
    index,
    kind: human ? 'human' : pending?.kind === 'event' ? 'wait' : label !== undefined ? 'router' : 'listen',
    trigger: undefined,
    routes,
    maxRuns: undefined,
    retries: 0,
    retryDelayMs: 0,
    timeoutMs: undefined,
    ...(pending?.kind === 'event' ? { event: pending.event } : {}),
    ...(pending?.kind === 'human' ? { prompt: pending.prompt } : {}),
  };
}

/** The rounds a stored flow run ran: the completed ones, then the one in progress (done, waiting, failed). */
function roundsOf(snapshot: FlowSnapshot): string[][] {
  const rounds = snapshot.rounds.map((r) => [...r.steps]);
  const seen = new Set(rounds.flat());
  const current = [
    ...snapshot.done.map((d) => d.step),
    ...snapshot.pending.map((p) => p.step),
    ...Object.keys(snapshot.errors).filter((step) => !seen.has(step)),
  ];
  if (current.length > 0) rounds.push([...new Set(current)]);
  return rounds;
}

/**
 * The view of a stored flow run drawn from the run alone, without its definition (a run a server or
 * code started): a node per step that ran, waits or failed, and an edge to each step from what the
 * round before it emitted (a router's or human step's chosen route, else the steps that ran).
 */
export function storedFlowView(snapshot: FlowSnapshot): RunView {
  const names = [...new Set(roundsOf(snapshot).flat())];
  const steps = new Map(names.map((name, index) => [name, stepOf(snapshot, name, index)]));
  const triggers = new Map<string, Set<string>>();
  const rounds = roundsOf(snapshot);
  for (const [at, round] of rounds.entries()) {
    const before = rounds[at - 1] ?? [];
    const tokens = before.map((step) => steps.get(step)?.routes?.[0] ?? step);
    for (const step of round)
      for (const token of tokens) triggers.set(step, (triggers.get(step) ?? new Set()).add(token));
  }
  for (const step of steps.values()) {
    const of = [...(triggers.get(step.name) ?? [])];
    step.trigger = of.length <= 1 ? of[0] : ({ kind: 'or', of } satisfies Trigger);
  }
  return toFlowView({ name: snapshot.flow, definition: { steps: [...steps.values()] } }, snapshot);
}
