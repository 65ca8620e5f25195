import { z } from 'zod';
import { fn } from '../../options/fields.js';
import { option, unchecked } from '../../options/option.js';
import type { Store } from '../../stores/store.js';
import { type CrewRun, runOptionsSchema } from './run-options.js';

const isRecord = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The options of `crew.fork(id, options)`: a run's (but `executionId` and `parent`), the checkpoint
 * to fork at, the kept outputs to edit, and the new run's id.
 */
export const crewForkOptionsSchema = runOptionsSchema
  .omit({ executionId: true, parent: true, thread: true })
  .extend({
    /**
     * The checkpoint to fork at: its node id (`'write'`, a loop's `'write#2'`), or its `seq` in the
     * source run's history (a whole number from 1). The completed tasks up to it, in commit order, are
     * kept; a failed or paused checkpoint is run again.
     */
    at: option<string | number>(
      'a checkpoint: its node id, or its seq (a whole number ≥ 1)',
      (v) => (typeof v === 'string' && v !== '') || (Number.isSafeInteger(v) && (v as number) >= 1),
    ),
    /**
     * Edited outputs of kept tasks, by node id: a string is the task's raw text (parsed as its
     * structured output when it has an `outputSchema`); any other value is its structured output
     * (checked against its `outputSchema`; the raw text is its JSON). Later tasks read the edits.
     */
    outputs: option<Record<string, unknown>>('an object of outputs by node id', isRecord).optional(),
    /**
     * Values for the tasks' `{placeholders}`, as a kickoff takes them (`invalid_inputs` otherwise).
     * @default the inputs the source run was started with
     */
    inputs: unchecked<Record<string, unknown>>().optional(),
    /** Where the source run is read from, and the new run is kept. @default the crew's `store` */
    store: unchecked<Store>().optional(),
    /** The new run's id (`run_exists` when the store holds it). @default a random UUID */
    id: unchecked<string>().optional(),
    /** Called with the new run as soon as it was created: subscribe to its `events$` there. */
    onRun: fn<(run: CrewRun) => void>().optional(),
  });

/** Options of {@link Crew.fork}: the checkpoint to fork at, edited outputs, and a run's options. */
export interface CrewForkOptions extends z.input<typeof crewForkOptionsSchema> {}

/** The options of `crew.history(id, options)`: one page of checkpoints, and the store to read. */
export const crewHistoryOptionsSchema = z.strictObject({
  /** Only checkpoints after this `seq` (where the previous page ended). @default 0 */
  after: unchecked<number>().optional(),
  /** At most this many checkpoints (a whole number from 1). @default every one */
  limit: unchecked<number>().optional(),
  /** The store the run is kept in. @default the crew's `store` */
  store: unchecked<Store>().optional(),
});

/** Options of {@link Crew.history}: a page (`after`, `limit`) and the store to read. */
export interface CrewHistoryOptions extends z.input<typeof crewHistoryOptionsSchema> {}
