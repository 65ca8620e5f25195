import { StepSets } from './step-sets.js';
import type { StepShape } from './step-shape.js';
import { namesIn, satisfiedBy } from './triggers.js';

/** A step run scheduled for a round, with the emission that triggered it. */
export interface ScheduledStep {
  step: string;
  /** 1 for the first run of the step, 2 for the second, … */
  run: number;
  /** The step name or route label whose emission triggered it (undefined for starts). */
  trigger: string | undefined;
}

/** What ending a round decided. */
export type RoundOutcome =
  | { kind: 'next'; steps: ScheduledStep[] }
  | { kind: 'exceeded'; step: string; maxRuns: number };

/** What every clone of a FlowRounds shares: who listens to each name, and the store of spent-step sets. */
interface RoundsIndex {
  listeners: Map<string, StepShape[]>;
  spent: StepSets;
}

function indexSteps(steps: readonly StepShape[]): RoundsIndex {
  const listeners = new Map<string, StepShape[]>();
  for (const step of steps) {
    if (step.trigger === undefined) continue;
    for (const name of namesIn(step.trigger)) {
      const list = listeners.get(name);
      if (list === undefined) listeners.set(name, [step]);
      else list.push(step);
    }
  }
  return { listeners, spent: new StepSets(steps.length) };
}

const byIndex = (a: StepShape, b: StepShape) => a.index - b.index;

/**
 * The round semantics of a flow, shared by its runs and its analysis. Round 1 runs every start step;
 * each later round runs every step whose trigger is satisfied by the names emitted since that step's
 * last run (a completed step emits its name, a router also its label). A step runs once, later
 * emissions ignored, unless it has `maxRuns`: then it fires on each new satisfaction, and a firing
 * past `maxRuns` fails the run. An `and` resets when its step fires. Work per round is proportional
 * to the steps that listen to what was emitted; a clone and a key cost what is live (steps waiting on
 * a trigger, steps with `maxRuns` that have run), not every step that ever ran.
 */
export class FlowRounds {
  readonly #steps: readonly StepShape[];
  readonly #index: RoundsIndex;
  /** Names emitted since its last run (with their emission number), per step that has some and can still fire. */
  readonly #since = new Map<StepShape, Map<string, number>>();
  /** Runs so far of the steps with `maxRuns` that have run. */
  readonly #runs = new Map<StepShape, number>();
  /** The once-only steps that have run, a set of `#index.spent`: they ignore every later emission. */
  #spent = StepSets.EMPTY;
  #seq = 0;

  /**
   * @param steps the flow's steps, in definition order (`index` is the position).
   * @param family a FlowRounds over the same steps whose listener index to share (what `clone` passes);
   *   its state is not copied.
   */
  constructor(steps: readonly StepShape[], family?: FlowRounds) {
    this.#steps = steps;
    this.#index = family === undefined ? indexSteps(steps) : family.#index;
  }

  /** The first round: every start step, in definition order. */
  first(): ScheduledStep[] {
    return this.#steps.filter((s) => s.kind === 'start').map((s) => this.#fire(s, undefined));
  }

  /**
   * Ends a round in which `emitted` names were emitted, in emission order (definition order of the
   * steps that completed, a router's label right after its name), and decides the next round.
   */
  next(emitted: readonly string[]): RoundOutcome {
    const touched = new Set<StepShape>();
    for (const name of emitted) {
      this.#seq += 1;
      for (const listener of this.#index.listeners.get(name) ?? []) {
        // A once-only step that has run ignores later emissions: nothing to record, nothing to key.
        if (this.#isSpent(listener)) continue;
        let since = this.#since.get(listener);
        if (since === undefined) {
          since = new Map();
          this.#since.set(listener, since);
        }
        since.set(name, this.#seq);
        touched.add(listener);
      }
    }
    const steps: ScheduledStep[] = [];
    for (const step of [...touched].sort(byIndex)) {
      const since = this.#since.get(step) as Map<string, number>;
      const satisfaction = satisfiedBy(step.trigger as NonNullable<typeof step.trigger>, since);
      if (satisfaction === undefined) continue;
      if (step.maxRuns !== undefined && (this.#runs.get(step) ?? 0) >= step.maxRuns) {
        return { kind: 'exceeded', step: step.name, maxRuns: step.maxRuns };
      }
      steps.push(this.#fire(step, satisfaction.name));
    }
    return { kind: 'next', steps };
  }

  /** An independent copy, for exploring what each choice of route labels leads to. */
  clone(): FlowRounds {
    const copy = new FlowRounds(this.#steps, this);
    for (const [step, since] of this.#since) copy.#since.set(step, new Map(since));
    for (const [step, runs] of this.#runs) copy.#runs.set(step, runs);
    copy.#spent = this.#spent;
    copy.#seq = this.#seq;
    return copy;
  }

  /**
   * What decides the future of a run, as a string: the set of once-only steps that have run (one
   * number, equal for equal sets), then per other step its runs (where a limit makes them count) and
   * the names emitted since its last run. Two states with the same key have the same futures.
   */
  key(): string {
    const live = new Set<StepShape>([...this.#runs.keys(), ...this.#since.keys()]);
    const parts = [String(this.#spent)];
    for (const step of [...live].sort(byIndex)) {
      const runs = this.#runs.get(step) ?? 0;
      const counted = step.maxRuns === Number.POSITIVE_INFINITY ? Math.min(runs, 1) : runs;
      const since = [...(this.#since.get(step)?.keys() ?? [])].sort();
      parts.push(`${step.name}:${counted}:${since.join(',')}`);
    }
    return parts.join('|');
  }

  /** Steps whose trigger is partly satisfied (some names emitted since their last run, not enough). */
  waiting(): { step: string; missing: string[] }[] {
    const found: { step: string; missing: string[] }[] = [];
    for (const step of [...this.#since.keys()].sort(byIndex)) {
      const since = this.#since.get(step) as Map<string, number>;
      const trigger = step.trigger as NonNullable<typeof step.trigger>;
      if (satisfiedBy(trigger, since) !== undefined) continue;
      found.push({ step: step.name, missing: [...namesIn(trigger)].filter((n) => !since.has(n)) });
    }
    return found;
  }

  #isSpent(step: StepShape): boolean {
    return step.maxRuns === undefined && this.#index.spent.has(this.#spent, step.index);
  }

  #fire(step: StepShape, trigger: string | undefined): ScheduledStep {
    this.#since.delete(step);
    if (step.maxRuns === undefined) {
      this.#spent = this.#index.spent.add(this.#spent, step.index);
      return { step: step.name, run: 1, trigger };
    }
    const run = (this.#runs.get(step) ?? 0) + 1;
    this.#runs.set(step, run);
    return { step: step.name, run, trigger };
  }
}
