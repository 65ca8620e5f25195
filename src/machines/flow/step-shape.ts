import type { Trigger } from './triggers.js';

/**
 * A `human` step is answered through `resume` (its routes are the human's choices); a `wait` step
 * through `signal`; a `sleep` step completes at its wake time; a `map` step runs a child run per item;
 * a `flow` step runs another flow as its child.
 */
export type StepKind = 'start' | 'listen' | 'router' | 'human' | 'wait' | 'sleep' | 'map' | 'flow';

/** What each item of a map step runs: a crew, a flow, or a function. */
export type MapRunKind = 'crew' | 'flow' | 'function';

/** A child flow's name and step shapes, recursively: what analysis and pictures compose. */
export interface ChildFlowShape {
  name: string;
  steps: readonly StepShape[];
}

/** How a map step runs its items, as the builder checked it. */
export interface MapShape {
  /** What each item runs. */
  runs: MapRunKind;
  /** The child flow's shape when each item runs a flow. */
  flow?: ChildFlowShape | undefined;
  /** The child crew's name when each item runs a crew. */
  crew?: string | undefined;
  /** Items run at once. @default 4 */
  concurrency: number;
  /** The most items a run of the step takes (`invalid_map_items` past it); undefined: no limit. */
  maxItems: number | undefined;
  /** Whether the step completes with its failed items in its output (else the first failure fails it). */
  allowFailures: boolean;
  /** Attempts after the first of each item, the wait before its first retry, each attempt's time limit. */
  itemRetries: number;
  itemRetryDelayMs: number;
  itemTimeoutMs: number | undefined;
}

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
  /** How a map step runs its items (a map step only). */
  map?: MapShape | undefined;
  /** The child flow a flow step runs (a flow step only). */
  subflow?: ChildFlowShape | undefined;
}

/** Whether a step chooses a route label (a router, or a human step): its routes, else undefined. */
export function routesOf(step: {
  kind: string;
  routes?: readonly string[] | undefined;
}): readonly string[] | undefined {
  return step.kind === 'router' || step.kind === 'human' ? step.routes : undefined;
}
