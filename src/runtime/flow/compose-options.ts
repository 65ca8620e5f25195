import { z } from 'zod';
import { flag, fn, integer, positive } from '../../options/fields.js';
import { option } from '../../options/option.js';
import type { Retyped } from '../../options/retyped.js';
import type { CrewOutput } from '../../types.js';
import type { ChildDefinition } from '../run/child-run.js';
import type { StepContext } from './definition.js';
import { DEFAULT_STEP_RETRY_DELAY_MS, listenOptionsSchema } from './step-options.js';

/** Items a map step runs at once unless it says otherwise. */
export const DEFAULT_MAP_CONCURRENCY = 4;

/** What a function item of a map step gets besides its item. */
export interface MapItemContext<S> {
  /** The item's position in the list, from 0. */
  index: number;
  /** The item's id (`itemId(item, index)`, else its index). */
  itemId: string;
  /** The item's child run id: `<parent id>/<node id>/<itemId>`. */
  runId: string;
  /** The attempt, from 1 (an item with `retries` is tried again). */
  attempt: number;
  /** The parent run's state: read it; items run at once, so a map step's output carries what they give. */
  state: Readonly<S>;
  /** The parent run's inputs. */
  inputs: Readonly<Record<string, unknown>>;
  /** Aborted when the run stops or the item's attempt times out. */
  signal: AbortSignal;
  /** The same for every execution of this item (each attempt, and after a crash): `<child id>`. */
  idempotencyKey: string;
}

/**
 * What each item of a map step runs: a crew (a child crew run per item), a flow (a child flow run
 * per item; a `Flow`), or a function of the item.
 */
export type MapRun<S, I> =
  | ChildDefinition<CrewOutput>
  | { readonly definition: { readonly steps: readonly unknown[] }; readonly name: string }
  | ((item: I, context: MapItemContext<S>) => unknown);

/** The options of `flow.map(name, trigger, options)`: the items, what each runs, and how. */
export const mapOptionsSchema = listenOptionsSchema.extend({
  /** The list to run, from the run: an array (or a promise of one). */
  items: fn<(context: StepContext<unknown>) => unknown>('a function returning the items (an array)'),
  /** What each item runs: a crew, a flow, or a function `(item, ctx) => output`. */
  run: option<unknown>(
    'a crew, a flow, or a function (item, ctx) => output',
    (value) => typeof value === 'function' || (typeof value === 'object' && value !== null),
  ),
  /**
   * A crew or flow item's inputs, from the item. @default the item itself when it is a plain object,
   * else `{ item }`
   */
  inputs: fn<(item: unknown, index: number) => Record<string, unknown>>().optional(),
  /** Items run at once. @default 4 */
  concurrency: integer(1).default(DEFAULT_MAP_CONCURRENCY),
  /**
   * Each item's id, from the item: text of 1–200 characters without `/`, distinct within the list;
   * the item's child run is `<parent id>/<node id>/<itemId>`. @default the item's index
   */
  itemId: fn<(item: unknown, index: number) => string>().optional(),
  /** The most items a run of the step takes: more fail the step (`invalid_map_items`). @default no limit */
  maxItems: integer(1).optional(),
  /** Keep going when items fail: the step completes with them in its output (`status: 'failed'`). @default false */
  allowFailures: flag().default(false),
  /** Attempts after the first of each item when it fails (per item, not the step). @default 0 */
  retries: integer(0).default(0),
  /** Wait before an item's first retry, in ms (doubled per attempt, jittered, capped at 30 s). @default 500 */
  retryDelayMs: integer(0).default(DEFAULT_STEP_RETRY_DELAY_MS),
  /** Time limit of each item's attempt, in ms on the run's clock (`step_timeout`). */
  timeoutMs: positive().optional(),
});

type MapInput = z.input<typeof mapOptionsSchema>;

/** Options of a map step over items of type `I`, in a flow over state `S`. */
export interface MapOptions<S, I>
  extends Omit<MapInput, 'items' | 'run' | 'inputs' | 'itemId'>,
    Retyped<MapInput, 'items', (context: StepContext<S>) => readonly I[] | Promise<readonly I[]>>,
    Retyped<MapInput, 'run', MapRun<S, I>>,
    Retyped<MapInput, 'inputs', ((item: I, index: number) => Record<string, unknown>) | undefined>,
    Retyped<MapInput, 'itemId', ((item: I, index: number) => string) | undefined> {}

/** A map step's options, checked, with the defaults filled in: what its body reads. */
export interface MapSettings {
  items: (context: StepContext<unknown>) => unknown;
  run: unknown;
  runs: 'crew' | 'flow' | 'function';
  inputs: ((item: unknown, index: number) => Record<string, unknown>) | undefined;
  concurrency: number;
  itemId: ((item: unknown, index: number) => string) | undefined;
  maxItems: number | undefined;
  allowFailures: boolean;
  retries: number;
  retryDelayMs: number;
  timeoutMs: number | undefined;
}

/** The options of `flow.flow(name, trigger, childFlow, options)`: the child's inputs, and how often it may run. */
export const subflowOptionsSchema = z.strictObject({
  /** The child run's inputs, from the parent's step context. @default none: the child's initial state */
  inputs: fn<(context: StepContext<unknown>) => Record<string, unknown>>().optional(),
  /** Runs allowed in one parent run (each a child run of its own: `<parent id>/<node id>`). @default 1 */
  maxRuns: listenOptionsSchema.shape.maxRuns,
});

type SubflowInput = z.input<typeof subflowOptionsSchema>;

/** Options of a flow step, in a flow over state `S`. */
export interface SubflowOptions<S>
  extends Omit<SubflowInput, 'inputs'>,
    Retyped<SubflowInput, 'inputs', ((context: StepContext<S>) => Record<string, unknown>) | undefined> {}
