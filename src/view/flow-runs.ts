import { type PendingStep, stepRunOf } from '../machines/flow/waits.js';
import { addUsage, emptyUsage } from '../models/usage.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { FlowRunInfo, FlowSnapshot } from '../runtime/flow/snapshot.js';
import type { Failure, StatecrewEvent, Usage } from '../types.js';
import { type MapRunFacts, mapRunFacts } from './map-runs.js';
import type { RunViewStatus, ViewRun } from './model.js';
import { plain, textOf } from './plain.js';
import { runEventFacts } from './run-events.js';
import { type ChildRuns, childRunSteps } from './subflow-runs.js';

/** A flow run to view from its result and the events collected while it ran (either may be left out). */
export interface FlowRunSource {
  output?: FlowOutput<unknown> | undefined;
  events?: readonly StatecrewEvent[] | undefined;
}

/** What `toFlowView` can show: a run's result and events, or a stored run (`flow.getRun(id)`, a snapshot). */
export type FlowViewSource = FlowRunSource | FlowRunInfo | FlowSnapshot;

/** What a flow run tells about its steps, from whichever source. */
export interface FlowRunFacts {
  id: string | undefined;
  status: RunViewStatus | undefined;
  finished: boolean;
  /** Each step's runs, in order. */
  runs: Map<string, ViewRun[]>;
  emitted: Set<string>;
  pending: PendingStep[];
  /** What the events tell of each human or wait step the run paused for, by step. */
  waits: Map<string, StepWait>;
  /** The wake time of each sleep step run that started sleeping, by node id (epoch ms). */
  sleeps: Map<string, number>;
  /** What the crews inside each step spent. */
  usageByStep: Map<string, Usage>;
  usage: Usage;
  startedAt: number | undefined;
  timeMs: number | undefined;
  /** What each map step run's items did, by node id (from the `flow.item` events). */
  maps: Map<string, MapRunFacts>;
  /** The steps of the child flow runs, by child run id (from their relayed events). */
  children: ChildRuns;
  /** Where each flow step waits inside its child, when the run is paused there: path and child run, by step. */
  childWaits: Map<string, { path: string; runId: string | undefined }>;
}

/** A human or wait step's wait, as the run's events tell it. */
export interface StepWait {
  /** Epoch ms when the run paused for it, and how long it waited (once answered, signaled or timed out). */
  since: number;
  waitedMs?: number;
  /** When it times out (epoch ms), as the pause said. */
  timeoutAt?: number;
  /** Its time ran out (`flow.timed_out`). */
  timedOut?: boolean;
}

const isStored = (source: FlowViewSource): source is FlowRunInfo | FlowSnapshot => 'trail' in source;

/**
 * Runs of each step from its trail (and the steps done in the round in progress): one completed run
 * per appearance, the latest with its output; then a failed run per failure.
 */
function trailRuns(
  trail: readonly string[],
  outputs: Readonly<Record<string, unknown>>,
  failures: Readonly<Record<string, Failure>>,
): Map<string, ViewRun[]> {
  const runs = new Map<string, ViewRun[]>();
  const push = (step: string, run: Omit<ViewRun, 'id' | 'iteration'>) => {
    const list = runs.get(step) ?? [];
    const n = list.length + 1;
    list.push({ id: n === 1 ? step : `${step}#${n}`, iteration: n, ...run });
    runs.set(step, list);
  };
  for (const step of trail) push(step, { status: 'completed' });
  for (const [step, list] of runs) {
    const latest = list.at(-1) as ViewRun;
    if (step in outputs) setValue(latest, outputs[step]);
  }
  for (const [step, failure] of Object.entries(failures)) {
    push(step, {
      status: 'failed',
      error: failure.message,
      ...(failure.code ? { code: failure.code } : {}),
      ...(failure.handled === true ? { handled: true } : {}),
    });
  }
  return runs;
}

/** A step's return value on its run: its text, and the value itself when it is not text. */
function setValue(run: ViewRun, value: unknown): void {
  if (value === undefined) return;
  run.output = textOf(value);
  if (typeof value !== 'string') run.structured = plain(value);
}

/**
 * The run's own flow events: those of child runs inside its steps (a child flow's, relayed with its
 * own run id) are left out, the crews' events are kept (their usage is the steps').
 */
function ownEvents(events: readonly StatecrewEvent[], id: string | undefined): readonly StatecrewEvent[] {
  if (id === undefined) return events;
  return events.filter((e) => e.runId === id || !e.type.startsWith('flow.'));
}

/** Where the run's pauses say each flow step waits inside its child flow (`WaitingStep` kind `flow`). */
function childWaitsOf(
  events: readonly StatecrewEvent[],
  pending: readonly PendingStep[],
): FlowRunFacts['childWaits'] {
  const waits: FlowRunFacts['childWaits'] = new Map();
  for (const event of events) {
    // Each pause says all it waits for; an answer or a signal ends the pause.
    if (event.type === 'flow.paused' || event.type === 'flow.resumed' || event.type === 'flow.signaled')
      waits.clear();
    // An answer through the parent is the child's `flow.resumed`, not the parent's: the flow step's
    // run starting again (or settling) ends its wait.
    if (event.type === 'flow.step') waits.delete(event.name);
    if (event.type !== 'flow.paused') continue;
    for (const w of event.waitingFor ?? [])
      if (w.kind === 'flow' && w.path !== undefined) waits.set(w.step, { path: w.path, runId: w.runId });
  }
  for (const p of pending) if (p.kind === 'flow') waits.set(p.step, { path: p.path, runId: p.runId });
  return waits;
}

/** Runs of each step from its `flow.step` events (the flow's own: crews' runs inside are left out). */
function eventRuns(events: readonly StatecrewEvent[]): Map<string, ViewRun[]> {
  const runs = new Map<string, ViewRun[]>();
  for (const event of events) {
    if (event.type !== 'flow.step') continue;
    const list = runs.get(event.name) ?? [];
    runs.set(event.name, list);
    const at = list.findIndex((r) => r.id === event.nodeId);
    let run = list[at];
    if (event.status === 'started' || run === undefined) {
      // A step run started again (its failed run resumed) replaces the earlier one.
      run = { id: event.nodeId, iteration: event.run, status: 'running', startedAt: event.at, attempts: 1 };
      if (at < 0) list.push(run);
      else list[at] = run;
      if (event.status === 'started') continue;
    }
    if (event.status === 'retrying') {
      run.attempts = event.attempt ?? (run.attempts ?? 1) + 1;
      run.retries = run.attempts - 1;
      continue;
    }
    run.status = event.status === 'completed' ? 'completed' : 'failed';
    run.durationMs = Math.max(0, event.at - (run.startedAt ?? event.at));
    if (event.status === 'completed') setValue(run, event.output);
    if (event.error !== undefined) run.error = event.error;
    if (event.code !== undefined) run.code = event.code;
    if (event.handled === true) run.handled = true;
  }
  return runs;
}

/** What the crews inside steps spent, by step. */
function stepUsage(events: readonly StatecrewEvent[], flowId: string | undefined): Map<string, Usage> {
  const byStep = new Map<string, Usage>();
  for (const event of events) {
    if (event.step === undefined || event.runId === flowId) continue;
    if (event.type !== 'model.call' && event.type !== 'manager.call' && event.type !== 'judge.verdict')
      continue;
    byStep.set(event.step, addUsage(byStep.get(event.step) ?? emptyUsage(), event.usage));
  }
  return byStep;
}

/** The steps waited for that a pause names, and what each waits until. */
function pausedWaits(event: Extract<StatecrewEvent, { type: 'flow.paused' }>): [string, StepWait][] {
  const timeoutOf = new Map((event.waitingFor ?? []).map((w) => [w.step, w.timeoutAt]));
  return event.waiting.map((step) => {
    const timeoutAt = timeoutOf.get(step);
    return [step, { since: event.at, ...(timeoutAt === undefined ? {} : { timeoutAt }) }];
  });
}

/** When the run paused for each human or wait step, until when, and how the wait ended. */
function stepWaits(events: readonly StatecrewEvent[]): FlowRunFacts['waits'] {
  const waits: FlowRunFacts['waits'] = new Map();
  for (const event of events) {
    if (event.type === 'flow.paused') for (const [step, wait] of pausedWaits(event)) waits.set(step, wait);
    const ended =
      event.type === 'flow.resumed' || event.type === 'flow.signaled' || event.type === 'flow.timed_out';
    const wait = ended ? waits.get(event.step) : undefined;
    if (wait === undefined) continue;
    wait.waitedMs = Math.max(0, event.at - wait.since);
    if (event.type === 'flow.timed_out') wait.timedOut = true;
  }
  return waits;
}

/** The wake time of each sleep step run its events saw start sleeping, by node id. */
function eventSleeps(events: readonly StatecrewEvent[]): Map<string, number> {
  const sleeps = new Map<string, number>();
  for (const event of events) if (event.type === 'flow.sleeping') sleeps.set(event.nodeId, event.wakeAt);
  return sleeps;
}

/** The names a stored run emitted, when it does not list them: steps, and the routes their outputs chose. */
function emittedOf(trail: readonly string[], outputs: Readonly<Record<string, unknown>>): Set<string> {
  const emitted = new Set(trail);
  for (const step of trail) {
    const value = outputs[step];
    if (typeof value === 'string') emitted.add(value);
    const route = (value as { route?: unknown } | null | undefined)?.route;
    if (typeof route === 'string') emitted.add(route);
  }
  return emitted;
}

/** The names a run's events say it emitted: each round's, and each route chosen. */
function eventEmitted(events: readonly StatecrewEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'flow.round' ? e.emitted : e.type === 'flow.route' ? [e.router, e.label] : [],
  );
}

/** The runs a result lists, each enriched with what its events told (timing); runs only events saw added. */
function mergeRuns(base: Map<string, ViewRun[]>, seen: Map<string, ViewRun[]>): Map<string, ViewRun[]> {
  for (const [step, runs] of seen) {
    const list = base.get(step) ?? [];
    for (const run of runs) {
      const at = list.findIndex((r) => r.id === run.id);
      if (at < 0) list.push(run);
      else list[at] = { ...list[at], ...run };
    }
    base.set(step, list);
  }
  return base;
}

/**
 * The step runs a running snapshot holds besides its trail: those done in the round in progress
 * (completed), and the sleep step runs sleeping (running), each of a step with no run of that id yet.
 */
function inProgressRuns(runs: Map<string, ViewRun[]>, snapshot: FlowSnapshot): void {
  if (snapshot.status !== 'running') return;
  const add = (step: string, nodeId: string, iteration: number, status: ViewRun['status']) => {
    const list = runs.get(step) ?? [];
    if (list.some((r) => r.id === nodeId)) return;
    list.push({ id: nodeId, iteration, status });
    runs.set(step, list);
  };
  for (const done of snapshot.done ?? []) add(done.step, done.nodeId, done.run, 'completed');
  for (const nodeId of Object.keys(snapshot.sleeps ?? {})) {
    const { step, run } = stepRunOf(nodeId);
    add(step, nodeId, run, 'running');
  }
}

function storedFacts(source: FlowRunInfo | FlowSnapshot): FlowRunFacts {
  const snapshot = 'version' in source ? source : undefined;
  const info = snapshot === undefined ? (source as FlowRunInfo) : undefined;
  const pending = snapshot?.pending ?? info?.waiting ?? (info?.pending === undefined ? [] : [info.pending]);
  const runs = trailRuns(source.trail, source.outputs, snapshot?.failures ?? {});
  if (snapshot !== undefined) inProgressRuns(runs, snapshot);
  return {
    id: source.id,
    status: source.status,
    // A paused run goes on once answered: the steps it did not reach may still run.
    finished: source.status !== 'running' && source.status !== 'paused',
    runs,
    emitted: snapshot === undefined ? emittedOf(source.trail, source.outputs) : new Set(snapshot.emitted),
    pending,
    waits: new Map(),
    sleeps: new Map(Object.entries(snapshot?.sleeps ?? {})),
    usageByStep: new Map(),
    usage: emptyUsage(),
    startedAt: undefined,
    timeMs: undefined,
    maps: new Map(),
    children: new Map(),
    childWaits: childWaitsOf([], pending),
  };
}

/** A flow source's facts, whichever kind it is. */
export function flowRunFacts(source: FlowViewSource): FlowRunFacts {
  if (isStored(source)) return storedFacts(source);
  const all = source.events ?? [];
  const { output } = source;
  const id = output?.id ?? all[0]?.runId;
  const events = ownEvents(all, id);
  const facts = runEventFacts(events, id);
  const runs = mergeRuns(
    output === undefined ? new Map() : trailRuns(output.trail, output.outputs, output.failures),
    eventRuns(events),
  );
  const status = output?.status ?? facts.status ?? (events.length > 0 ? 'running' : undefined);
  const timeMs =
    output?.totalTimeMs ??
    (facts.startedAt !== undefined && facts.lastAt !== undefined
      ? facts.lastAt - facts.startedAt
      : undefined);
  const pending = output?.waiting ?? (output?.pending === undefined ? [] : [output.pending]);
  return {
    id,
    status,
    finished: status !== undefined && status !== 'running' && status !== 'paused',
    runs,
    emitted: new Set([...(output?.emitted ?? []), ...eventEmitted(events)]),
    pending,
    waits: stepWaits(events),
    sleeps: eventSleeps(events),
    usageByStep: stepUsage(events, id),
    usage: facts.usage,
    startedAt: facts.startedAt,
    timeMs,
    maps: mapRunFacts(events, id),
    children: childRunSteps(all, id),
    childWaits: childWaitsOf(events, pending),
  };
}
