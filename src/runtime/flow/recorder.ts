import { failed } from '../../machines/flow/triggers.js';
import type { Failure } from '../../types.js';
import type { UnstampedEvent } from '../run/run-events.js';

/**
 * Folds a flow run's events into what its result reports: the trail (round by round, in definition
 * order within a round), every step's latest output, the names emitted, and the errors. The run's only
 * bookkeeping of what ran.
 */
export class FlowRecorder {
  readonly trail: string[] = [];
  readonly outputs = new Map<string, unknown>();
  readonly emitted: string[] = [];
  readonly errors: Record<string, string> = {};
  readonly failures: Record<string, Failure> = {};

  /** Folds `event` into the record (when it happened does not matter to it). */
  apply(event: UnstampedEvent): void {
    switch (event.type) {
      case 'flow.step':
        if (event.status === 'completed') this.outputs.set(event.name, event.output);
        if (event.status === 'failed') this.#fail(event);
        return;
      case 'flow.round':
        for (const step of event.steps) this.trail.push(step);
        for (const name of event.emitted) this.emitted.push(name);
        return;
      default:
        return;
    }
  }

  #fail(event: Extract<UnstampedEvent, { type: 'flow.step' }>): void {
    const message = event.error ?? 'failed';
    this.errors[event.name] = message;
    const failure: Failure = { message, retryable: event.retryable ?? false };
    if (event.code !== undefined) failure.code = event.code;
    if (event.details !== undefined) failure.details = event.details;
    if (event.handled === true) failure.handled = true;
    this.failures[event.name] = failure;
  }

  /**
   * Starts from where a stored run stopped: the trail and emissions of its completed rounds, every
   * output it recorded, and its handled failures (other errors are not kept: the failed steps run again).
   */
  restore(from: {
    rounds: readonly { steps: readonly string[]; emitted: readonly string[] }[];
    outputs: Record<string, unknown>;
    failures?: Record<string, Failure> | undefined;
  }): void {
    // A handled failure counts once its round completed (it emitted `failed(<step>)`).
    const emitted = new Set(from.rounds.flatMap((r) => r.emitted));
    for (const [step, failure] of Object.entries(from.failures ?? {})) {
      if (failure.handled !== true || !emitted.has(failed(step))) continue;
      this.failures[step] = failure;
      this.errors[step] = failure.message;
    }
    for (const round of from.rounds) {
      this.trail.push(...round.steps);
      this.emitted.push(...round.emitted);
    }
    for (const [step, output] of Object.entries(from.outputs)) this.outputs.set(step, output);
  }

  /** The output of the last step in the trail (its latest run is the last one in the trail). */
  get lastOutput(): unknown {
    const last = this.trail.at(-1);
    return last === undefined ? undefined : this.outputs.get(last);
  }

  /** A read-only view of the outputs, by step name, that stays current as the run goes on. */
  outputsView(): Readonly<Record<string, unknown>> {
    const outputs = this.outputs;
    const refuse = () => {
      throw new TypeError('ctx.outputs is read-only');
    };
    return new Proxy({} as Record<string, unknown>, {
      get: (_, key) => (typeof key === 'string' ? outputs.get(key) : undefined),
      has: (_, key) => typeof key === 'string' && outputs.has(key),
      ownKeys: () => [...outputs.keys()],
      getOwnPropertyDescriptor: (_, key) =>
        typeof key === 'string' && outputs.has(key)
          ? { value: outputs.get(key), enumerable: true, configurable: true, writable: false }
          : undefined,
      set: refuse,
      deleteProperty: refuse,
      defineProperty: refuse,
    });
  }
}
