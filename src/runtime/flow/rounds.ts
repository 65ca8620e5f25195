import type { StepShape } from './definition.js';
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

/**
 * The round semantics of a flow, shared by its runs and its analysis. Round 1 runs every start step;
 * each later round runs every step whose trigger is satisfied by the names emitted since that step's
 * last run (a completed step emits its name, a router also its label). A step runs once, later
 * emissions ignored, unless it has `maxRuns`: then it fires on each new satisfaction, and a firing
 * past `maxRuns` fails the run. An `and` resets when its step fires. Work per round is proportional
 * to the steps that listen to what was emitted.
 */
export class FlowRounds {
  readonly #steps: readonly StepShape[];
  readonly #listeners = new Map<string, StepShape[]>();
  readonly #since = new Map<string, Map<string, number>>();
  readonly #runs = new Map<string, number>();
  #seq = 0;

  constructor(steps: readonly StepShape[]) {
    this.#steps = steps;
    for (const step of steps) {
      if (step.trigger === undefined) continue;
      for (const name of namesIn(step.trigger)) {
        const list = this.#listeners.get(name);
        if (list === undefined) this.#listeners.set(name, [step]);
        else list.push(step);
      }
    }
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
      for (const listener of this.#listeners.get(name) ?? []) {
        let since = this.#since.get(listener.name);
        if (since === undefined) {
          since = new Map();
          this.#since.set(listener.name, since);
        }
        since.set(name, this.#seq);
        touched.add(listener);
      }
    }
    const steps: ScheduledStep[] = [];
    for (const step of [...touched].sort((a, b) => a.index - b.index)) {
      const since = this.#since.get(step.name) as Map<string, number>;
      const satisfaction = satisfiedBy(step.trigger as NonNullable<typeof step.trigger>, since);
      if (satisfaction === undefined) continue;
      const runs = this.#runs.get(step.name) ?? 0;
      if (runs >= (step.maxRuns ?? 1)) {
        if (step.maxRuns !== undefined) return { kind: 'exceeded', step: step.name, maxRuns: step.maxRuns };
        since.clear();
        continue;
      }
      steps.push(this.#fire(step, satisfaction.name));
    }
    return { kind: 'next', steps };
  }

  #fire(step: StepShape, trigger: string | undefined): ScheduledStep {
    const run = (this.#runs.get(step.name) ?? 0) + 1;
    this.#runs.set(step.name, run);
    this.#since.get(step.name)?.clear();
    return { step: step.name, run, trigger };
  }
}
