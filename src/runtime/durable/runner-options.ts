import type { Observable } from 'rxjs';
import { z } from 'zod';
import { integer } from '../../options/fields.js';
import { unchecked, withRule } from '../../options/option.js';
import { checkStore, isStore, type Store } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import type { Clock, ClockOption } from '../engine/clock.js';
import type { FlowSchedule, ScheduledKickoff } from './schedules.js';

/** What a runner passes to the `resume` of a run it recovers. */
export interface RecoveryOptions {
  store: Store;
  clock: Clock;
  leaseMs?: number;
  /** Aborted with a `GracefulStop` when the runner closes: the run is suspended, for a later resume. */
  signal?: AbortSignal;
  onRun(run: { events$: Observable<StatecrewEvent> }): void;
}

/** What a runner needs of a flow (any `Flow`, whatever its state): its name, `resume`, and `kickoff` for schedules. */
export interface RecoverableFlow {
  readonly name: string;
  resume(id: string, answer: undefined, options: RecoveryOptions): Promise<unknown>;
  /** Starts a run: what a schedule's tick does (a flow without it cannot be scheduled). */
  kickoff?(options: ScheduledKickoff): Promise<unknown>;
  /**
   * When the first of the waiting steps of paused run `id` in `store` times out (epoch ms), if any
   * has a deadline: the runner goes on with the run then.
   */
  nextDeadline(id: string, store: Store): Promise<number | undefined>;
}

/** What a runner needs of a crew (any `Crew`): its name, and `resume`. */
export interface RecoverableCrew {
  readonly name: string;
  resume(executionId: string, options: RecoveryOptions): Promise<unknown>;
}

/** A runner's store: required, so a missing one is named as such before a wrong one is. */
const runnerStore = withRule(z.custom<Store>(isStore), {
  expected: 'a Store',
  refuse: (where, store) => (store === undefined ? undefined : checkStore(where, store)),
});

/** The options of `createRunner(...)`: each option's type, check, default and docs, once. */
export const runnerOptionsSchema = z.strictObject({
  /** Where the runs it looks after are kept. */
  store: runnerStore,
  /** The flows whose runs it may resume, found by name. @default [] */
  flows: unchecked<readonly RecoverableFlow[]>().optional(),
  /** The crews whose runs it may resume, found by name. @default [] */
  crews: unchecked<readonly RecoverableCrew[]>().optional(),
  /** The clock for leases and polling. @default the system clock */
  clock: unchecked<ClockOption>().optional(),
  /** How often it looks for stuck runs, in ms. @default 5000 */
  pollMs: integer(1).optional(),
  /** The lease of the runs it resumes, in ms. @default each definition's own, else 15000 */
  leaseMs: integer(10).optional(),
  /**
   * How long `close()` lets the runs it resumed reach their next commit, in ms, before it abandons
   * their steps and gives their leases up (they stay `running`, for any runner to resume).
   * @default 10000
   */
  shutdownGraceMs: integer(0).optional(),
  /**
   * Flows it starts on a cron schedule: each tick once across every runner on the store (the run id
   * is the schedule's name and the tick), ticks counted from when a runner first saw the schedule.
   * @default []
   */
  schedules: unchecked<readonly FlowSchedule[]>().optional(),
});

/** Options of {@link createRunner}. */
export interface RunnerOptions extends z.input<typeof runnerOptionsSchema> {}
