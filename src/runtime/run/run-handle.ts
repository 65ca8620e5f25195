import type { Observable } from 'rxjs';
import type { AnyActorRef } from 'xstate';
import type { StatecrewEvent } from '../../types.js';

/** A run in progress, whatever its kind: its id, its events, its supervisor actor and its result. */
export interface RunHandle<O> {
  /** The run's id (a crew's execution id, a flow's state id). */
  id: string;
  /** Every event of the run, in order; completes when the run ends. Subscribe right after it started. */
  events$: Observable<StatecrewEvent>;
  /** The supervisor actor (it starts on the next microtask). */
  actor: AnyActorRef;
  /**
   * Resolves with the run's result; rejects on abort (`aborted`) or a configuration error. Nobody has
   * to await it: a failure is also the `run.failed` event.
   */
  result: Promise<O>;
}
