import type { StepDefinition } from './definition.js';
import type { HumanAnswer } from './snapshot.js';

/** What the step inputs read of their flow run. */
export interface StepInputsParts<S> {
  steps: readonly StepDefinition<S>[];
  /** Every completed step's latest output, by step name; read as the run goes on. */
  outputs: ReadonlyMap<string, unknown>;
  /** The answer a resumed paused run was given, for one of its waiting human steps. */
  answer?: HumanAnswer | undefined;
  /** Route labels forced per router or human step. */
  forced?: ReadonlyMap<string, string | readonly string[]> | undefined;
}

/**
 * What a scheduled step run is handed besides its step: the payload its trigger carries, and — for a
 * human step — the answer it already has.
 */
export class StepInputs<S> {
  readonly #names: ReadonlySet<string>;
  /** Route label → the human step that declares it: listeners of the label get the human's answer. */
  readonly #humanOfLabel = new Map<string, string>();

  constructor(private readonly parts: StepInputsParts<S>) {
    this.#names = new Set(parts.steps.map((s) => s.name));
    for (const step of parts.steps) {
      if (step.kind === 'human')
        for (const label of step.routes ?? []) this.#humanOfLabel.set(label, step.name);
    }
  }

  /**
   * The payload of a step run triggered by `trigger`: a step's output, the output of the human step
   * whose route it is, or the label itself; undefined for a start.
   */
  payloadOf(trigger: string | undefined): unknown {
    if (trigger === undefined) return undefined;
    const { outputs } = this.parts;
    if (this.#names.has(trigger)) return outputs.get(trigger);
    const human = this.#humanOfLabel.get(trigger);
    return human === undefined ? trigger : outputs.get(human);
  }

  /**
   * The answer of run `run` of human step `step` in round `round` of this run: the resumed run's
   * answer (it belongs to the round the run paused in, this run's first), or a forced route.
   */
  answerFor(step: string, run: number, round: number): HumanAnswer | undefined {
    const given = this.parts.answer;
    if (round === 1 && given !== undefined && given.step === step) return given;
    const choice = this.parts.forced?.get(step);
    const route = typeof choice === 'string' ? choice : choice?.[run - 1];
    return route === undefined ? undefined : { step, route, feedback: undefined };
  }
}
