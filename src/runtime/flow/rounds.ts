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
 * Persistent, hash-consed sets of step indexes: a set is a number, adding makes a new number and
 * leaves the old set as it was, and equal sets are always the same number. A set is a binary trie over
 * the bits of the index, of fixed depth, whose nodes are interned, so adding and looking up cost
 * O(log steps). The once-only steps that have run live here: a clone shares them by copying a number,
 * and a key names them by that number, however many there are.
 */
class StepSets {
  /** Node 0 is the empty set at any depth; node 1 the leaf of a present index. */
  static readonly EMPTY = 0;
  static readonly #PRESENT = 1;
  /** A Map holds at most 2^24 entries; below that, a pair of ids is one exact number. */
  static readonly #ID_LIMIT = 2 ** 24;
  readonly #left: number[] = [0, 1];
  readonly #right: number[] = [0, 1];
  readonly #interned = new Map<number, number>();
  readonly #depth: number;

  constructor(size: number) {
    this.#depth = Math.max(1, Math.ceil(Math.log2(Math.max(size, 2))));
  }

  /** Whether `index` is in `set`. */
  has(set: number, index: number): boolean {
    let node = set;
    for (let bit = this.#depth - 1; bit >= 0 && node !== StepSets.EMPTY; bit -= 1) {
      node = ((index >>> bit) & 1 ? this.#right[node] : this.#left[node]) as number;
    }
    return node !== StepSets.EMPTY;
  }

  /** `set` with `index` added, as a new set (`set` itself is unchanged). */
  add(set: number, index: number): number {
    return this.#add(set, index, this.#depth - 1);
  }

  #add(node: number, index: number, bit: number): number {
    if (bit < 0) return StepSets.#PRESENT;
    const left = this.#left[node] as number;
    const right = this.#right[node] as number;
    return (index >>> bit) & 1
      ? this.#node(left, this.#add(right, index, bit - 1))
      : this.#node(this.#add(left, index, bit - 1), right);
  }

  /** The one node with these children. A node's depth follows from its non-empty child, so ids never clash across depths. */
  #node(left: number, right: number): number {
    const pair = left * StepSets.#ID_LIMIT + right;
    let id = this.#interned.get(pair);
    if (id === undefined) {
      id = this.#left.length;
      if (id >= StepSets.#ID_LIMIT) throw new RangeError('Too many step sets to key exactly');
      this.#left.push(left);
      this.#right.push(right);
      this.#interned.set(pair, id);
    }
    return id;
  }
}

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
