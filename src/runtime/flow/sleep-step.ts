import { InvalidOptionError } from '../../errors.js';
import type { Clock } from '../engine/clock.js';
import type { RunEvents } from '../run/run-events.js';
import type { StepContext, StepDefinition } from './definition.js';

/** What a sleep step needs of its run: its clock and events, the wake times stored, and a way to store one. */
export interface SleepParts {
  clock: Clock;
  hub: RunEvents;
  /** Wake times of the sleep step runs that started, by node id: a stored one holds. */
  sleeps: Map<string, number>;
  /** Stores step run `nodeId`'s wake time before it sleeps; rejects when the write failed. */
  noteWake(nodeId: string, wakeAt: number): Promise<void>;
  /** Tells the step run's lifecycle that it waits, until `wakeAt` (it goes on by itself then). */
  waits(wakeAt: number): void;
}

/** Resolves once `clock` reads `wakeAt` or later; rejects with the signal's reason on abort. */
function sleepUntil(clock: Clock, wakeAt: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal.reason);
    };
    const tick = () => {
      const left = wakeAt - clock.now();
      if (left <= 0) {
        signal.removeEventListener('abort', onAbort);
        resolve();
        return undefined;
      }
      // A host timer may fire a little early: sleep the rest, never waking before `wakeAt`.
      handle = clock.setTimeout(tick, left);
      return handle;
    };
    let handle: unknown;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    tick();
  });
}

/** The wake time a sleep step's options give for its context, checked (`invalid_option`). */
function wakeTimeOf<S>(step: StepDefinition<S>, context: StepContext<S>, now: number): number {
  const sleep = step.sleep as NonNullable<StepDefinition<S>['sleep']>;
  if ('ms' in sleep) return now + sleep.ms;
  const { state, payload, inputs, outputs, flowId } = context;
  const until = sleep.until({ state, payload, inputs, outputs, flowId });
  const at = until instanceof Date ? until.getTime() : until;
  if (typeof at !== 'number' || !Number.isFinite(at)) {
    throw new InvalidOptionError(`Flow step "${step.name}"`, 'until', 'a Date or epoch ms', until);
  }
  return at;
}

/**
 * A sleep step run as a step whose body sleeps: its wake time — stored from an earlier run of the
 * same step run, else computed and stored before it sleeps — on the run's clock; then it returns the
 * payload it was triggered with.
 */
export function sleepingStep<S>(
  step: StepDefinition<S>,
  nodeId: string,
  parts: SleepParts,
): StepDefinition<S> {
  return {
    ...step,
    run: async (context) => {
      let wakeAt = parts.sleeps.get(nodeId);
      if (wakeAt === undefined) {
        wakeAt = wakeTimeOf(step, context, parts.clock.now());
        await parts.noteWake(nodeId, wakeAt);
        parts.sleeps.set(nodeId, wakeAt);
      }
      parts.hub.emit({ type: 'flow.sleeping', step: step.name, nodeId, wakeAt });
      parts.waits(wakeAt);
      await sleepUntil(parts.clock, wakeAt, context.signal);
      return context.payload;
    },
  };
}
