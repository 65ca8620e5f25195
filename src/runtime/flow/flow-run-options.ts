import type { ActorOptions, AnyActorLogic } from 'xstate';
import { z } from 'zod';
import { unchecked } from '../../options/option.js';
import type { Retyped } from '../../options/retyped.js';
import type { Store } from '../../stores/store.js';
import type { ClockOption } from '../engine/clock.js';
import type { FlowRun } from './flow-output.js';
import type { ForcedRoutes } from './forced-routes.js';

/*
 * A run's options are taken as they are here: the run checks their values itself (inputs, routes,
 * stores, leases), in the order it always did, so only the keys are checked on the way in.
 */

/** The options of one flow run (`flow.kickoff`, `flow.run`): each option's type, default and docs, once. */
export const flowRunOptionsSchema = z.strictObject({
  /** Merged into the state before the start steps (a plain object); `inputs.id` sets the state id. @default {} */
  inputs: unchecked<Record<string, unknown>>().optional(),
  /**
   * The largest inputs taken, in bytes of their JSON form: larger ones (and inputs nested deeper than
   * 100 levels) are refused with `invalid_inputs` before any work, as the run would hold the host's
   * event loop while it encodes them for its store. `Infinity` takes any size. @default 4194304 (4 MiB)
   */
  maxInputBytes: unchecked<number>().optional(),
  /**
   * Aborting it stops the steps in flight (and their crews) and rejects the run with
   * `RunAbortedError` (`aborted`): `cause` is the signal's reason, `partial` the flow output so far.
   */
  signal: unchecked<AbortSignal>().optional(),
  /** An XState inspection observer: it sees the flow, every step run and every crew inside one. */
  inspect: unchecked<ActorOptions<AnyActorLogic>['inspect']>().optional(),
  /** The clock for timestamps, durations and backoffs (a `Clock`, or its `now`). @default the system clock */
  clock: unchecked<ClockOption>().optional(),
  /**
   * Forces routers along a path without calling them: a label forces every run of that router, a list
   * its successive runs. A missing label, or one outside the routes, fails the step (`unknown_route`);
   * a key naming no router rejects the kickoff (`unknown_router`).
   */
  routes: unchecked<ForcedRoutes>().optional(),
  /**
   * Where the run is kept: its snapshot is written when it starts (claiming its id: `run_exists` if
   * a run holds it) and after every step, and the next round starts only once it is written.
   * @default the flow's `store`
   */
  store: unchecked<Store>().optional(),
  /**
   * Forks a stored run (`kickoff` only): a new run, with a new id, starting from that run's stored
   * state with `inputs` merged over it; the source run is unchanged.
   */
  from: unchecked<string>().optional(),
  /**
   * Runs on a thread (`kickoff` only; needs a store): the run starts from the last state of the
   * thread's previous run of this flow (pruned runs skipped; the flow's initial state for the first),
   * `inputs` merged over it, as a new run with its own id (`inputs.id`, else a fresh one). While the
   * thread's latest run is running or paused the kickoff is refused (`thread_busy`); a previous run
   * of another flow on the thread, `flow_mismatch`. `out.thread` says the thread. 1–512 characters.
   */
  thread: unchecked<string>().optional(),
  /**
   * How long the run's lease in its store lasts without renewal, in ms: it is renewed every third of
   * that while the run runs; a run whose process died can be taken over after it.
   * @default the flow's `leaseMs`, else 15000
   */
  leaseMs: unchecked<number>().optional(),
  /**
   * `'store'`: the run keeps every event it publishes (but `model.delta`) in its store, numbered, in
   * the commits of its steps; `readEvents(store, id)` reads them back, and a resume goes on keeping
   * them. Needs a store.
   */
  events: unchecked<'store'>().optional(),
});

/** Options of one flow run. */
export interface FlowRunOptions extends z.input<typeof flowRunOptionsSchema> {}

/** The options of `flow.resume` and `flow.signal`: a run's but `inputs` and `from`, and who hears of it. */
export const flowResumeOptionsSchema = flowRunOptionsSchema
  .omit({ inputs: true, maxInputBytes: true, from: true, thread: true })
  .extend({
    /**
     * Called with the resumed run as soon as it was claimed and created (before it starts): subscribe
     * to its `events$` there to see every event. Not called for a completed run, which runs nothing.
     */
    onRun: unchecked<(run: FlowRun<unknown>) => void>().optional(),
  });

type FlowResumeInput = z.input<typeof flowResumeOptionsSchema>;

/** Options of {@link Flow.resume}: a run's options, and who hears of the run once it started. */
export interface FlowResumeOptions<S>
  extends Omit<FlowResumeInput, 'onRun'>,
    Retyped<FlowResumeInput, 'onRun', ((run: FlowRun<S>) => void) | undefined> {}
