import { z } from 'zod';
import { integer } from '../../options/fields.js';
import { unchecked, withRule } from '../../options/option.js';
import { checkStore, isStore, type Store } from '../../stores/store.js';
import type { ClockOption } from '../engine/clock.js';
import type { RecoverableCrew, RecoverableFlow } from './runner.js';
import type { FlowSchedule } from './schedules.js';

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
   * Flows it starts on a cron schedule: each tick once across every runner on the store (the run id
   * is the schedule's name and the tick), ticks counted from when a runner first saw the schedule.
   * @default []
   */
  schedules: unchecked<readonly FlowSchedule[]>().optional(),
});

/** Options of {@link createRunner}. */
export interface RunnerOptions extends z.input<typeof runnerOptionsSchema> {}
