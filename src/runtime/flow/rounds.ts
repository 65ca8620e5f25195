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
  readonly #listeners: Map<string, StepShape[]> = new Map();
  readonly #since = new Map<string, Map<string, number>>();
  readonly #runs = new Map<string, number>();
  #seq = 0;

  constructor(steps: readonly StepShape[], listeners?: Map<string, StepShape[]>) {
    this.#steps = steps;
    if (listeners !== undefined) {
      this.#listeners = listeners;
      return;
    }
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

  /** An independent copy, for exploring what each choice of route labels leads to. */
  clone(): FlowRounds {
    const copy = new FlowRounds(this.#steps, this.#listeners);
    for (const [step, since] of this.#since) copy.#since.set(step, new Map(since));
    for (const [step, runs] of this.#runs) copy.#runs.set(step, runs);
    copy.#seq = this.#seq;
    return copy;
  }

  /**
   * What decides the future of a run, as a string: per step, its runs (where a limit makes them count)
   * and the names emitted since its last run — forgetting steps that can no longer fire. Two states
   * with the same key have the same futures.
   */
  key(): string {
    const parts: string[] = [];
    for (const step of this.#steps) {
      const runs = this.#runs.get(step.name) ?? 0;
      const spent = step.maxRuns === undefined && runs >= 1;
      const since = spent ? [] : [...(this.#since.get(step.name)?.keys() ?? [])].sort();
      const counted = step.maxRuns === Number.POSITIVE_INFINITY ? Math.min(runs, 1) : runs;
      if (counted === 0 && since.length === 0) continue;
      parts.push(`${step.name}:${counted}:${since.join(',')}`);
    }
    return parts.join('|');
  }

  /** Steps whose trigger is partly satisfied (some names emitted since their last run, not enough). */
  waiting(): { step: string; missing: string[] }[] {
    const found: { step: string; missing: string[] }[] = [];
    for (const step of this.#steps) {
      const since = this.#since.get(step.name);
      if (step.trigger === undefined || since === undefined || since.size === 0) continue;
      if (step.maxRuns === undefined && (this.#runs.get(step.name) ?? 0) >= 1) continue;
      if (satisfiedBy(step.trigger, since) !== undefined) continue;
      found.push({ step: step.name, missing: [...namesIn(step.trigger)].filter((n) => !since.has(n)) });
    }
    return found;
  }

  #fire(step: StepShape, trigger: string | undefined): ScheduledStep {
    const run = (this.#runs.get(step.name) ?? 0) + 1;
    this.#runs.set(step.name, run);
    this.#since.get(step.name)?.clear();
    return { step: step.name, run, trigger };
  }
}
