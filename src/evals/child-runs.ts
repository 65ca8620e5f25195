import type { ChildRound } from '../runtime/flow/coverage.js';
import { failedStepOf, type StepShape } from './flow-shape.js';

/** One run of a flow step's child flow, as its relayed rounds tell it. */
export interface ChildRun {
  trail: string[];
  emitted: string[];
  /** Its own flow steps' child rounds (a grandchild's), tagged with its step. */
  children: ChildRound[];
}

/** The step names a round mentions: those that completed, and those it emitted (a `failed(step)` by its step). */
function namesOf(round: ChildRound): string[] {
  return [...round.steps, ...round.emitted.map((name) => failedStepOf(name) ?? name)];
}

/** Whether `round` is a round of a flow with `steps` (it names one of them), not of a flow deeper down. */
function isRoundOf(round: ChildRound, steps: ReadonlySet<string>): boolean {
  return namesOf(round).some((name) => steps.has(name));
}

/** The flow step among `steps` whose child flow (at whatever depth) has a step `round` names. */
function deeperStepOf(round: ChildRound, steps: readonly StepShape[]): string | undefined {
  const names = namesOf(round);
  const holds = (inner: readonly StepShape[]): boolean =>
    inner.some((s) => names.includes(s.name) || (s.subflow !== undefined && holds(s.subflow.steps)));
  return steps.find((s) => s.kind === 'flow' && s.subflow !== undefined && holds(s.subflow.steps))?.name;
}

/**
 * The runs of flow step `step`'s child flow, from the rounds relayed to the parent (tagged with the
 * step, a grandchild's too): a round naming one of the child's steps is the child's own, else a
 * grandchild's, kept for the run it belongs to (the child's round that follows it); a round naming
 * one of the child's start steps begins a new run. Rounds told apart by names alone: a grandchild
 * whose rounds name only steps its parent also has is read as its parent's.
 */
export function childRunsOf(step: StepShape, rounds: readonly ChildRound[]): ChildRun[] {
  const steps = step.subflow?.steps ?? [];
  const own = new Set(steps.map((s) => s.name));
  const starts = new Set(steps.filter((s) => s.kind === 'start').map((s) => s.name));
  const runs: ChildRun[] = [];
  let pending: ChildRound[] = [];
  for (const round of rounds.filter((r) => r.step === step.name)) {
    if (!isRoundOf(round, own)) {
      const deeper = deeperStepOf(round, steps);
      if (deeper !== undefined) pending.push({ ...round, step: deeper });
      continue;
    }
    const current = runs[runs.length - 1];
    const begins = namesOf(round).some((name) => starts.has(name));
    const run =
      current === undefined || (begins && current.trail.length + current.emitted.length > 0)
        ? { trail: [], emitted: [], children: [] }
        : current;
    if (run !== current) runs.push(run);
    run.children.push(...pending);
    run.trail.push(...round.steps);
    run.emitted.push(...round.emitted);
    pending = [];
  }
  if (pending.length > 0) {
    if (runs.length === 0) runs.push({ trail: [], emitted: [], children: [] });
    (runs[runs.length - 1] as ChildRun).children.push(...pending);
  }
  return runs;
}
