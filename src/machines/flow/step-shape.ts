import type { Trigger } from './triggers.js';

/**
 * A `human` step is answered through `resume` (its routes are the human's choices); a `wait` step
 * through `signal`; a `sleep` step completes at its wake time.
 */
export type StepKind = 'start' | 'listen' | 'router' | 'human' | 'wait' | 'sleep';

/** A flow step without its body: what scheduling, the flow machine and analysis read. */
export interface StepShape {
  name: string;
  /** Position in definition order, from 0. */
  index: number;
  kind: StepKind;
  trigger: Trigger | undefined;
  routes: readonly string[] | undefined;
  /** undefined: runs once, later emissions ignored; k: runs up to k times, a (k+1)-th firing fails the run. */
  maxRuns: number | undefined;
  /** Attempts after the first (0: none), the wait before the first retry, and each attempt's time limit. */
  retries: number;
  retryDelayMs: number;
  timeoutMs: number | undefined;
  /** The outside event a wait step waits for (a wait step only). */
  event?: string | undefined;
  /** How long a human or wait step waits before it times out, in ms on the run's clock. */
  deadlineMs?: number | undefined;
  /** The label a human or wait step emits instead when it timed out (else the timeout fails the step). */
  onTimeout?: string | undefined;
}

/** Whether a step chooses a route label (a router, or a human step): its routes, else undefined. */
export function routesOf(step: {
  kind: string;
  routes?: readonly string[] | undefined;
}): readonly string[] | undefined {
  return step.kind === 'router' || step.kind === 'human' ? step.routes : undefined;
}
