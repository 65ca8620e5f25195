import { z } from 'zod';
import { integer } from '../../options/fields.js';
import { checkedBy, option, unchecked } from '../../options/option.js';
import type { RetypedRequired } from '../../options/retyped.js';
import { storeOption } from '../../stores/store.js';
import type { Clock, ClockOption } from '../engine/clock.js';
import { copyInitialState } from './state.js';

/** The options a flow definition keeps for its runs: where they are kept and on which clock. */
export const flowSettingsSchema = z.strictObject({
  /** Where runs are kept (snapshots after every step); a kickoff may name another. */
  store: storeOption().optional(),
  /** How long a run's lease in its store lasts without renewal, in ms. @default 15000 */
  leaseMs: integer(10).optional(),
  /** The clock of its runs: timestamps, backoffs, deadlines and sleeps (a manual clock in tests). @default the system clock */
  clock: option<ClockOption>(
    'a Clock or a function returning epoch ms',
    (c) => typeof c === 'function' || typeof (c as Partial<Clock> | null)?.now === 'function',
  ).optional(),
});

/** Where a flow's runs are kept and on which clock, unless a kickoff says otherwise. */
export interface FlowSettings extends z.input<typeof flowSettingsSchema> {}

/** The options of `createFlow(...)`, either form: each option's type, check, default and docs, once. */
export const flowOptionsSchema = z.strictObject({
  /** The flow's name: its runs are found by it (resume, runners, stores). */
  name: unchecked<string>(),
  /** Copied (deeply) for every run, so it must be an object `structuredClone` can copy. @default {} */
  initialState: checkedBy<object>('an object', copyInitialState).optional(),
  /** Validates the inputs (`invalid_inputs`) and the state after every step (`invalid_state`). */
  state: option<z.ZodType>(
    'a zod schema (for a plain starting object, use initialState)',
    (schema) => typeof (schema as { safeParse?: unknown } | null)?.safeParse === 'function',
  ).optional(),
  ...flowSettingsSchema.shape,
});

type FlowOptionsInput = z.input<typeof flowOptionsSchema>;

/** Options of {@link createFlow} with a free state object. */
export interface FreeFlowOptions<S extends object>
  extends Omit<FlowOptionsInput, 'initialState' | 'state'>,
    RetypedRequired<FlowOptionsInput, 'initialState', S> {}

/** Options of {@link createFlow} with a schema-checked state. */
export interface StructuredFlowOptions<Z extends z.ZodType>
  extends Omit<FlowOptionsInput, 'initialState' | 'state'>,
    RetypedRequired<FlowOptionsInput, 'state', Z> {}
