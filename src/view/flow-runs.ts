import { addUsage, emptyUsage } from '../models/usage.js';
import type { FlowOutput } from '../runtime/flow/flow-run.js';
import type { FlowRunInfo, FlowSnapshot, PendingStep } from '../runtime/flow/snapshot.js';
import type { Failure, StatecrewEvent, Usage } from '../types.js';
import type { RunViewStatus, ViewRun } from './model.js';
import { plain, textOf } from './plain.js';
import { runEventFacts } from './run-events.js';

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
  /** When the run paused for each waiting human step, and how long it waited (when answered). */
  waits: Map<string, { since: number; waitedMs?: number }>;
  /** What the crews inside each step spent. */
  usageByStep: Map<string, Usage>;
  usage: Usage;
  startedAt: number | undefined;
  timeMs: number | undefined;
}

const isStored = (source: FlowViewSource): source is FlowRunInfo | FlowSnapshot => 'trail' in source;

/** Runs of each step from its trail: one completed run per appearance, the latest with its output. */
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
    push(step, { status: 'failed', error: failure.message, ...(failure.code ? { code: failure.code } : {}) });
  }
  return runs;
}

/** A step's return value on its run: its text, and the value itself when it is not text. */
function setValue(run: ViewRun, value: unknown): void {
  if (value === undefined) return;
  run.output = textOf(value);
  if (typeof value !== 'string') run.structured = plain(value);
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

function humanWaits(events: readonly StatecrewEvent[]): FlowRunFacts['waits'] {
  const waits: FlowRunFacts['waits'] = new Map();
  for (const event of events) {
    if (event.type === 'flow.paused') for (const step of event.waiting) waits.set(step, { since: event.at });
    const wait = event.type === 'flow.resumed' ? waits.get(event.step) : undefined;
    if (wait !== undefined) wait.waitedMs = Math.max(0, event.at - wait.since);
  }
  return waits;
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

function storedFacts(source: FlowRunInfo | FlowSnapshot): FlowRunFacts {
  const snapshot = 'version' in source ? source : undefined;
  const info = snapshot === undefined ? (source as FlowRunInfo) : undefined;
  const pending = snapshot?.pending ?? (info?.pending === undefined ? [] : [info.pending]);
  return {
    id: source.id,
    status: source.status,
    finished: source.status !== 'running',
    runs: trailRuns(source.trail, source.outputs, snapshot?.failures ?? {}),
    emitted: snapshot === undefined ? emittedOf(source.trail, source.outputs) : new Set(snapshot.emitted),
    pending,
    waits: new Map(),
    usageByStep: new Map(),
    usage: emptyUsage(),
    startedAt: undefined,
    timeMs: undefined,
  };
}

/** A flow source's facts, whichever kind it is. */
export function flowRunFacts(source: FlowViewSource): FlowRunFacts {
  if (isStored(source)) return storedFacts(source);
  const events = source.events ?? [];
  const { output } = source;
  const id = output?.id ?? events[0]?.runId;
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
  return {
    id,
    status,
    finished: status !== undefined && status !== 'running',
    runs,
    emitted: new Set([...(output?.emitted ?? []), ...eventEmitted(events)]),
    pending: output?.waiting ?? (output?.pending === undefined ? [] : [output.pending]),
    waits: humanWaits(events),
    usageByStep: stepUsage(events, id),
    usage: facts.usage,
    startedAt: facts.startedAt,
    timeMs,
  };
}
