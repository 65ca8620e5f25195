import type { PendingStep } from '../../machines/flow/waits.js';
import type { Failure, RunLineage } from '../../types.js';
import type { RunHandle } from '../run/run-handle.js';
import type { WithId } from './state.js';

/** The result of a flow run. */
export interface FlowOutput<S> {
  /** The state id. */
  id: string;
  state: WithId<S>;
  /** The return value of the last step in `trail`. */
  output: unknown;
  /** Completed step runs, round by round, in definition order within a round. */
  trail: string[];
  /** Every completed step's latest output, by step name. */
  outputs: Record<string, unknown>;
  /** Every name emitted (step names and route labels), in order. */
  emitted: string[];
  /** `failed` also for the partial output of an aborted run. */
  status: 'completed' | 'failed' | 'paused';
  /** Step name → error message. */
  errors: Record<string, string>;
  /** Step name → the failure with its code: the contract that survives JSON. */
  failures: Record<string, Failure>;
  totalTimeMs: number;
  /** A paused run: the human or wait step it waits for (the first, when several wait). */
  pending?: PendingStep;
  /** A paused run with several steps waiting: all of them. */
  waiting?: PendingStep[];
  /** The thread the run is on (`kickoff({ thread })`). */
  thread?: string;
  /** A fork (`flow.fork`): the run and checkpoint it was forked from. */
  forkedFrom?: RunLineage;
}

/** A failed run's failure that failed it: its first one not handled (else its first), with its step. */
export function firstFailureOf(out: FlowOutput<unknown>): [string | undefined, Failure | undefined] {
  const entries = Object.entries(out.failures);
  const [step, failure] = entries.find(([, f]) => f.handled !== true) ?? entries[0] ?? [];
  return [step, failure];
}

/** A flow run in progress: its state id, events (crews' included, tagged with their step), actor and result. */
export interface FlowRun<S> extends RunHandle<FlowOutput<S>> {}
