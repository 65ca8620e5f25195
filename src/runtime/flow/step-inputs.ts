import { failedStepOf } from '../../machines/flow/triggers.js';
import type { Failure } from '../../types.js';
import type { StepDefinition } from './definition.js';
import { forcedOutcome } from './forced-routes.js';
import type { StepAnswer } from './snapshot.js';

/** What the step inputs read of their flow run. */
export interface StepInputsParts<S> {
  steps: readonly StepDefinition<S>[];
  /** Every completed step's latest output, by step name; read as the run goes on. */
  outputs: ReadonlyMap<string, unknown>;
  /** The run's failures by step, read as the run goes on: a `failed(...)` trigger's payload. */
  failures: Readonly<Record<string, Failure>>;
  /** The answers a resumed paused run was given, for its waiting steps. */
  answers?: readonly StepAnswer[] | undefined;
  /** Route labels forced per router or human step. */
  forced?: ReadonlyMap<string, string | readonly string[]> | undefined;
}

/**
 * What a scheduled step run is handed besides its step: the payload its trigger carries, and — for a
 * human or wait step — the answer it already has.
 */
export class StepInputs<S> {
  readonly #byName: ReadonlyMap<string, StepDefinition<S>>;
  /** Route or timeout label → the human or wait step that declares it: its listeners get that step's output. */
  readonly #ownerOfLabel = new Map<string, string>();

  constructor(private readonly parts: StepInputsParts<S>) {
    this.#byName = new Map(parts.steps.map((s) => [s.name, s]));
    for (const step of parts.steps) {
      if (step.kind === 'human')
        for (const label of step.routes ?? []) this.#ownerOfLabel.set(label, step.name);
      if (step.onTimeout !== undefined) this.#ownerOfLabel.set(step.onTimeout, step.name);
    }
  }

  /**
   * The payload of a step run triggered by `trigger`: a step's output, the output of the human or wait
   * step whose label it is, `{ step, error }` for `failed(step)`, or the label itself; undefined for a start.
   */
  payloadOf(trigger: string | undefined): unknown {
    if (trigger === undefined) return undefined;
    const { outputs } = this.parts;
    if (this.#byName.has(trigger)) return outputs.get(trigger);
    const failedStep = failedStepOf(trigger);
    if (failedStep !== undefined) return this.#failurePayload(failedStep);
    const owner = this.#ownerOfLabel.get(trigger);
    return owner === undefined ? trigger : outputs.get(owner);
  }

  /**
   * The answer of run `run` of human or wait step `step` in round `round` of this run: an answer the
   * resumed run was given (it belongs to the round the run paused in, this run's first), or one its
   * forced outcome makes.
   */
  answerFor(step: StepDefinition<S>, run: number, round: number): StepAnswer | undefined {
    const given =
      round === 1 ? this.parts.answers?.find((a) => a.step === step.name && a.kind !== 'crew') : undefined;
    if (given !== undefined) return given;
    const route =
      this.parts.forced === undefined ? undefined : forcedOutcome(this.parts.forced, step.name, run);
    if (route === undefined) return undefined;
    if (route === step.onTimeout) return { kind: 'timeout', step: step.name };
    if (step.kind === 'wait')
      return { kind: 'signal', step: step.name, event: step.event ?? '', payload: undefined };
    return { kind: 'human', step: step.name, route, feedback: undefined };
  }

  #failurePayload(step: string): unknown {
    const failure = this.parts.failures[step];
    if (failure === undefined) return { step, error: { message: 'failed', retryable: false } };
    const error: { message: string; code?: string; retryable: boolean } = {
      message: failure.message,
      retryable: failure.retryable,
    };
    if (failure.code !== undefined) error.code = failure.code;
    return { step, error };
  }
}
