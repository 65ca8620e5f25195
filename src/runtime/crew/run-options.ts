import type { ActorOptions, AnyActorLogic, AnyActorRef } from 'xstate';
import { z } from 'zod';
import { fn, integer } from '../../options/fields.js';
import { unchecked } from '../../options/option.js';
import type { Store } from '../../stores/store.js';
import type { ApprovalAnswer, CrewOutput, ModelPrice, ReviewAnswer } from '../../types.js';
import type { Budget } from '../engine/budget.js';
import type { ClockOption } from '../engine/clock.js';
import type { StoreErrorPolicy } from '../run/run-commits.js';
import type { RunHandle } from '../run/run-handle.js';
import type { Task } from './task.js';

/** A crew run in progress: its id, events, supervisor actor and result (the result contract). */
export interface CrewRun extends RunHandle<CrewOutput> {}

/*
 * A run's options are taken as they are here: the run checks their values itself (inputs, ids,
 * budgets, stores, leases), in the order it always did, so only the keys are checked on the way in.
 */

/** The options of one crew run (`crew.kickoff`, `crew.run`): each option's type, default and docs, once. */
export const runOptionsSchema = z.strictObject({
  /**
   * Values for `{placeholders}` in descriptions, expected outputs and agent personas: a plain object of
   * strings, numbers, booleans, `null`, and plain objects and arrays of these (shown as JSON); any
   * other value (a `Set`, a `Date`, a function) is refused with `invalid_inputs`. @default {}
   */
  inputs: unchecked<Record<string, unknown>>().optional(),
  /**
   * The largest inputs taken, in bytes of their JSON form: larger ones (and inputs nested deeper than
   * 100 levels) are refused with `invalid_inputs` before any work, as the run would hold the host's
   * event loop while it encodes them for its store. `Infinity` takes any size. @default 4194304 (4 MiB)
   */
  maxInputBytes: unchecked<number>().optional(),
  /**
   * Refuses a run whose inputs leave an `{identifier}` placeholder unfilled (`missing_input`), before
   * any model call; off, such a run goes on, with a `run.warning` event and `metadata.missingInputs`.
   * @default the crew's `strictInputs`, else false
   */
  strictInputs: unchecked<boolean>().optional(),
  /**
   * Aborting it cancels in-flight model calls and rejects the run with `RunAbortedError` (`aborted`):
   * its `cause` is the signal's reason, its `partial` the result so far.
   */
  signal: unchecked<AbortSignal>().optional(),
  /** An XState inspection observer: it sees the supervisor and every task and agent run actor. */
  inspect: unchecked<ActorOptions<AnyActorLogic>['inspect']>().optional(),
  /** The run's execution id. @default a random UUID */
  executionId: unchecked<string>().optional(),
  /**
   * The clock for timestamps, durations and retry backoffs: a `Clock`, or just its `now` in epoch
   * milliseconds (backoffs then wait on the host's timers). @default the system clock
   */
  clock: unchecked<ClockOption>().optional(),
  /**
   * Runs the crew's supervisor as a child of this actor, in its actor system (a flow step does this);
   * `inspect` is then the system's.
   */
  parent: unchecked<AnyActorRef>().optional(),
  /** What this run may spend on model calls (`budget_exceeded` once spent). @default the crew's `budget` */
  budget: unchecked<Budget>().optional(),
  /** Streams every agent's model text as `model.delta` events. @default each agent's `stream` */
  stream: unchecked<boolean>().optional(),
  /** Prices by model id (`'openai:gpt-4.1-mini'`): each call's `costUsd` when its model reports none. @default the crew's */
  prices: unchecked<Readonly<Record<string, ModelPrice>>>().optional(),
  /** Where this run is kept (and, for `resume` and `replay`, read from). @default the crew's `store` */
  store: unchecked<Store>().optional(),
  /**
   * How long the run's lease in its store lasts without renewal, in ms: it is renewed every third of
   * that while the run runs; a run whose process died can be taken over after it.
   * @default the crew's `leaseMs`, else 15000
   */
  leaseMs: unchecked<number>().optional(),
  /**
   * What a failed write to the store does: `stop` the run before anything else starts (it rejects
   * with the store's error, `store_unavailable`), or `continue` it, reporting the failure as a
   * `store.error` event and in `metadata.storeErrors`. A lost lease always stops it (`lease_lost`).
   * @default the crew's `onStoreError`, else 'stop'
   */
  onStoreError: unchecked<StoreErrorPolicy>().optional(),
  /**
   * `'store'`: the run keeps every event it publishes (but `model.delta`) in its store, numbered, in
   * the commits of its records; `readEvents(store, id)` reads them back, and a resume goes on keeping
   * them. Needs a store.
   */
  events: unchecked<'store'>().optional(),
  /**
   * Runs on a thread (needs a store): the completed task results of the thread's earlier runs come
   * before this run's in the execution memory (oldest first, each with its `runId`), and
   * `metadata.thread` says the thread. While the thread's latest run is running or paused the run is
   * refused (`thread_busy`). 1–512 characters.
   */
  thread: unchecked<string>().optional(),
});

/** Options of one crew run. */
export interface RunOptions extends z.input<typeof runOptionsSchema> {}

/** The options of `crew.replay(id, options)`: a run's, and the task to run again from. */
export const replayOptionsSchema = runOptionsSchema.omit({ thread: true }).extend({
  /** The first task to run again: a task of the crew, or its node id. */
  fromTask: unchecked<Task | string>(),
});

/** Options of {@link Crew.replay}: a run's options and the task to run again from. */
export interface ReplayOptions extends z.input<typeof replayOptionsSchema> {}

/** The options of `crew.resume(id, options)`: a run's but its id, who hears of it, and the answers. */
export const crewResumeOptionsSchema = runOptionsSchema.omit({ executionId: true, thread: true }).extend({
  /** Called with the resumed run as soon as it was claimed and created: subscribe to its `events$` there. */
  onRun: unchecked<(run: CrewRun) => void>().optional(),
  /**
   * Answers to tool calls waiting for approval, by `callId` (`out.pending`): `{ approve: true }` runs
   * the call; `{ approve: false, feedback }` gives the model the refusal with the feedback instead.
   */
  approvals: unchecked<Readonly<Record<string, ApprovalAnswer>>>().optional(),
  /**
   * Answers to task outputs waiting for review, by node id: `{ approve: true }` completes the task
   * with it; `{ approve: false, feedback }` sends it back to the agent for another attempt.
   */
  reviews: unchecked<Readonly<Record<string, ReviewAnswer>>>().optional(),
});

/**
 * Options of {@link Crew.resume}: a run's options, who hears of the run once it started, and the
 * answers to what a paused run waits for.
 */
export interface CrewResumeOptions extends z.input<typeof crewResumeOptionsSchema> {}

/**
 * The options of `crew.kickoffForEach(list, options)`: a kickoff's that every run shares — but
 * `inputs` (each run has its entry), `executionId` (each run has its own) and `parent` — and how
 * many run at once.
 */
export const kickoffForEachOptionsSchema = runOptionsSchema
  .omit({ inputs: true, executionId: true, parent: true, thread: true })
  .extend({
    /** Runs in flight at most. @default 4 */
    concurrency: integer(1).default(4),
    /**
     * Aborting it aborts the runs in flight (each rejects with `aborted`, as a kickoff does) and
     * rejects the runs not started yet with `aborted` without starting them.
     */
    signal: unchecked<AbortSignal>().optional(),
    /** Called with each run as soon as it was created, and its position in the list: subscribe to its `events$` there. */
    onRun: fn<(run: CrewRun, index: number) => void>().optional(),
  });

/**
 * Options of {@link Crew.kickoffForEach}: a kickoff's options that every run shares — but `inputs`
 * (each run has its entry), `executionId` (each run has its own) and `parent` — and how many run at
 * once.
 */
export interface KickoffForEachOptions extends z.input<typeof kickoffForEachOptionsSchema> {}
