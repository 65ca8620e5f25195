import { emissionOf, FAILED_OUTCOME } from './outcomes.js';
import { FlowRounds, type ScheduledStep } from './rounds.js';
import type { StepShape } from './step-shape.js';
import type { PendingStep, SnapshotRound } from './waits.js';

/** The node id of a scheduled step run: its step's name, `name#k` from its second run on. */
export const runNodeId = (scheduled: ScheduledStep): string =>
  scheduled.run === 1 ? scheduled.step : `${scheduled.step}#${scheduled.run}`;

/** Settled step runs of a round, newest first: a list each settling extends without copying. */
export interface SettledRun {
  nodeId: string;
  /** The outcome it chose (a label; `failed` for a handled failure); undefined for one with a single outcome. */
  outcome: string | undefined;
  /** It failed and nothing handles its failure. */
  unhandled: boolean;
  previous: SettledRun | undefined;
}

/**
 * The run as the flow machine's context holds it: the round semantics' state (emissions since each
 * step's last run, runs per step, spent steps), the round in progress — its step runs, how each that
 * settled settled, which wait and until when — and how the run stands (failed, paused, the last round
 * closed). It holds what is live, never the run's history (trail and outputs are the recorder's).
 *
 * Every change derives a new state and leaves the old one as it was, so the machine's snapshots can be
 * explored by `@xstate/graph` like any other; each costs O(1) (a settled run extends a list) but
 * closing a round, which clones the round semantics' state — what is live, not what ran.
 */
export interface FlowRoundState {
  readonly rounds: FlowRounds;
  /** The step runs of the round in progress, or of the next round between rounds. */
  readonly scheduled: readonly ScheduledStep[];
  /** Step runs of the round in progress that settled, newest first. */
  readonly settled: SettledRun | undefined;
  /** How many step runs of the round in progress settled. */
  readonly settledCount: number;
  /** Steps of the round in progress that wait (a human's answer, an outside event), with their deadline. */
  readonly waiting: readonly PendingStep[];
  /** A step failed and no `failed(...)` trigger handles it, or one fired past its `maxRuns`. */
  readonly failed: boolean;
  /** The step whose firing passed its `maxRuns`, if one did. */
  readonly exceeded: { step: string; maxRuns: number } | undefined;
  /** The round closed last: the steps that completed in it and what it emitted. */
  readonly closed: SnapshotRound | undefined;
  /** Rounds completed, counting the rounds an earlier run of the same stored run completed. */
  readonly completed: number;
}

/** What the flow machine knows of its flow's steps. */
export interface FlowSteps {
  byName: ReadonlyMap<string, StepShape>;
  /** The steps whose failure a `failed(...)` trigger handles. */
  handled: ReadonlySet<string>;
}

/**
 * The state a run starts in: round 1 (every start step), or — going on with a stored run — the round
 * it stopped in, found by replaying what its completed rounds emitted.
 */
export function initialRoundState(
  steps: readonly StepShape[],
  completedRounds: readonly SnapshotRound[] = [],
): FlowRoundState {
  const rounds = new FlowRounds(steps);
  let scheduled = rounds.first();
  for (const round of completedRounds) {
    const outcome = rounds.next(round.emitted);
    scheduled = outcome.kind === 'next' ? outcome.steps : [];
  }
  return {
    rounds,
    scheduled,
    settled: undefined,
    settledCount: 0,
    waiting: [],
    failed: false,
    exceeded: undefined,
    closed: undefined,
    completed: completedRounds.length,
  };
}

/** Every step run of the round in progress settled (completed or failed) or waits. */
export function roundSettled(state: FlowRoundState): boolean {
  return state.settledCount + state.waiting.length >= state.scheduled.length;
}

/** Step run `nodeId` completed with `outcome` (a label it chose; undefined for a step with one outcome). */
export function settleRun(
  state: FlowRoundState,
  nodeId: string,
  outcome: string | undefined,
): FlowRoundState {
  const settled = { nodeId, outcome, unhandled: false, previous: state.settled };
  return { ...state, settled, settledCount: state.settledCount + 1 };
}

/**
 * Step run `nodeId` of step `step` failed for good: a failure some `failed(...)` trigger handles
 * settles it with outcome `failed`; any other fails the run.
 */
export function failRun(
  state: FlowRoundState,
  steps: FlowSteps,
  nodeId: string,
  step: string,
): FlowRoundState {
  if (steps.handled.has(step)) return settleRun(state, nodeId, FAILED_OUTCOME);
  const settled = { nodeId, outcome: undefined, unhandled: true, previous: state.settled };
  return { ...state, settled, settledCount: state.settledCount + 1, failed: true };
}

/** A step of the round waits: for a human's answer or an outside event. */
export function waitFor(state: FlowRoundState, pending: PendingStep): FlowRoundState {
  return { ...state, waiting: [...state.waiting, pending] };
}

/** The outcomes of the round's settled runs that completed or whose failure is handled, by node id. */
function outcomes(state: FlowRoundState): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (let run = state.settled; run !== undefined; run = run.previous) {
    if (!run.unhandled) found.set(run.nodeId, run.outcome);
  }
  return found;
}

/**
 * Closes the settled round: what its runs emitted, in definition order (`emissionOf`), becomes
 * `closed`; then, unless a step failed or waits (the run pauses), the round semantics decide the next
 * round (or that a step fired past its `maxRuns`, failing the run).
 */
export function closeRound(state: FlowRoundState, steps: FlowSteps): FlowRoundState {
  const settled = outcomes(state);
  const closed: SnapshotRound = { steps: [], emitted: [] };
  // A round's runs are scheduled in definition order (`FlowRounds`): its emissions follow it.
  for (const scheduled of state.scheduled) {
    const nodeId = runNodeId(scheduled);
    if (settled.has(nodeId)) emitInto(closed, steps, scheduled.step, settled.get(nodeId));
  }
  return nextRound(state, closed, true);
}

/**
 * Analysis: the round in progress settled at once — each step run with the outcome `labels` gives
 * its step (none for a step with one outcome) — and closed, as `closeRound` would close it, except
 * that it keeps no `closed` record (nothing reads it there, and the graph keeps every state). A
 * `failed` outcome of a step whose failure nothing handles (a flow step whose child flow can fail)
 * fails the run, as `failRun` does.
 */
export function exploreRound(
  state: FlowRoundState,
  steps: FlowSteps,
  labels: Readonly<Record<string, string>>,
): FlowRoundState {
  const emitted: string[] = [];
  for (const { step: name } of state.scheduled) {
    const label = labels[name];
    const step = steps.byName.get(name) as StepShape;
    if (label === FAILED_OUTCOME && !steps.handled.has(name) && step.routes?.includes(label) !== true) {
      // An empty round settles at once: `between` closes it and ends the run failed.
      return { ...state, scheduled: [], settled: undefined, settledCount: 0, failed: true };
    }
    if (label === undefined && step.kind !== 'router' && step.kind !== 'human') emitted.push(name);
    else for (const each of emissionOf(step, label).emitted) emitted.push(each);
  }
  return nextRound(state, { steps: [], emitted }, false);
}

/** Adds what a step run of `name` that settled with `outcome` emitted to `closed` (`emissionOf`). */
function emitInto(closed: SnapshotRound, steps: FlowSteps, name: string, outcome: string | undefined): void {
  const step = steps.byName.get(name) as StepShape;
  if (outcome === undefined && step.kind !== 'router' && step.kind !== 'human') {
    closed.steps.push(name);
    closed.emitted.push(name);
    return;
  }
  const emission = emissionOf(step, outcome);
  if (emission.completed) closed.steps.push(name);
  for (const emitted of emission.emitted) closed.emitted.push(emitted);
}

/**
 * The state once round `closed` closed: as it was (with `closed`) when a step failed or waits;
 * else the next round the round semantics schedule, or a failure past a step's `maxRuns`.
 */
function nextRound(state: FlowRoundState, closed: SnapshotRound, keep: boolean): FlowRoundState {
  const { waiting, failed, exceeded, completed } = state;
  if (failed || waiting.length > 0) {
    const { rounds, scheduled, settled, settledCount } = state;
    return { rounds, scheduled, settled, settledCount, waiting, failed, exceeded, closed, completed };
  }
  const rounds = state.rounds.clone();
  const next = rounds.next(closed.emitted);
  const ended = next.kind !== 'next';
  return {
    rounds,
    scheduled: next.kind === 'next' ? next.steps : [],
    settled: undefined,
    settledCount: 0,
    waiting,
    failed: ended,
    exceeded: next.kind === 'next' ? undefined : { step: next.step, maxRuns: next.maxRuns },
    closed: keep ? closed : undefined,
    completed: completed + 1,
  };
}

/** The run pauses: its round closed with steps waiting, and nothing failed. */
export function paused(state: FlowRoundState): boolean {
  return !state.failed && state.waiting.length > 0;
}
