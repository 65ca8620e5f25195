import type { z } from 'zod';
import { unchecked } from '../../options/option.js';
import type { Retyped } from '../../options/retyped.js';
import type { Store } from '../../stores/store.js';
import type { HistoryOptions } from '../../types.js';
import type { FlowRun } from './flow-output.js';
import { flowResumeOptionsSchema } from './flow-run-options.js';

/** The options of `flow.fork`: where to fork, what to change, and the new run's options. */
export const flowForkOptionsSchema = flowResumeOptionsSchema.extend({
  /**
   * The checkpoint to fork at: its node id (`history` lists it as `checkpoint`) or its `seq`. The new
   * run keeps the source's committed step runs up to and including it, and runs on from there.
   * Unknown or not committed: `checkpoint_not_found`.
   */
  at: unchecked<string | number>(),
  /**
   * New outputs for kept step runs, by node id (or step name: its latest kept run). A router's is one
   * of its routes; a human step's is `{ route, feedback? }` or a route label. A router, human or wait
   * step of an earlier round than `at`'s cannot change the path already taken (`invalid_option`:
   * fork at that step).
   */
  outputs: unchecked<Record<string, unknown>>().optional(),
  /**
   * The state at the checkpoint, changed: an object is merged shallowly over it; a function gets a
   * copy and returns the new state. Checked like a step's state (`invalid_state`).
   */
  state: unchecked<Record<string, unknown> | ((state: unknown) => unknown)>().optional(),
  /** Merged over the state after `state`, as `kickoff({ from })` does, and over the run's inputs. @default {} */
  inputs: unchecked<Record<string, unknown>>().optional(),
  /** The new run's id (its state's `id`): `run_exists` when the store holds it. @default a random UUID */
  id: unchecked<string>().optional(),
  /**
   * Called with the fork's run as soon as it was created (before it starts): subscribe to its
   * `events$` there to see every event.
   */
  onRun: unchecked<(run: FlowRun<unknown>) => void>().optional(),
});

type FlowForkInput = z.input<typeof flowForkOptionsSchema>;

/** Options of {@link Flow.fork}: the checkpoint, the edits, and the new run's options. */
export interface FlowForkOptions<S>
  extends Omit<FlowForkInput, 'onRun' | 'state'>,
    Retyped<FlowForkInput, 'onRun', ((run: FlowRun<S>) => void) | undefined>,
    Retyped<FlowForkInput, 'state', Partial<S> | ((state: S) => S) | undefined> {}

/** Options of {@link Flow.history}: one page of checkpoints, and the store to read. */
export interface FlowHistoryOptions extends HistoryOptions {
  /** Where the run is kept. @default the flow's `store` */
  store?: Store | undefined;
}
